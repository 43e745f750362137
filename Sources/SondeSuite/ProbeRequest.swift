import SondeCore

/// One entry of a probe check's `urls`: a URL and, optionally, the name its results go by
/// (`RequestName`; without one, the method and the URL without its query). A suite writes it as
/// the URL alone or as `{name: login, url: https://…/login}`; the command line as
/// `--name login https://…/login` (the name applies to the URL right after it, `PositionalRuns`).
///
/// Decoded from a string or a mapping with `url` and `name` only; any other key, or a mapping
/// without `url`, is a `dataCorrupted` error at the entry (said in the suite's words).
public struct ProbeRequest: SpecValue, Hashable {
    public var url: String
    public var name: String?

    public init(url: String, name: String? = nil) {
        self.url = url
        self.name = name
    }

    private enum Key: String, CodingKey, CaseIterable { case name, url }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let url = try? single.decode(String.self) {
            self.init(url: url)
            return
        }
        let container: KeyedDecodingContainer<Key>
        do { container = try decoder.container(keyedBy: Key.self) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected a URL, or {name: NAME, url: URL}"))
        }
        // The mapping's own keys: an unknown one is a mistake to report, not to skip.
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        if let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.first(where: { Key(rawValue: $0.stringValue) == nil }) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "unknown key '\(unknown.stringValue)' in a request (allowed: name, url)"))
        }
        guard container.contains(.url) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a request written as a mapping needs url: (and may have name:)"))
        }
        self.init(url: try container.decode(String.self, forKey: .url), name: try container.decodeIfPresent(String.self, forKey: .name))
    }

    /// The URL alone when unnamed (so suites without names read and print as before), else `{name, url}`.
    public func encode(to encoder: any Encoder) throws {
        guard let name else {
            var single = encoder.singleValueContainer()
            try single.encode(url)
            return
        }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        try container.encode(url, forKey: .url)
    }
}
