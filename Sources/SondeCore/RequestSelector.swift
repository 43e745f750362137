/// The requests a threshold judges, written after its metric in braces as k6 writes tags:
/// `total.p95{name=login}<300ms`, `errors.rate{url=https://api.example.com/x}<1%`. Pairs are
/// `key=value` (or k6's `key:value`), separated by commas; a request matches when every pair
/// does. Keys: `name` (the request's name, `RequestName`, compared exactly) and `url` (its URL
/// without the query and fragment, `RequestName.comparable`). A value holds no `,` or `}`.
///
/// Invariant: `pairs` is non-empty, each key appears once, and no value is empty; a `url` value
/// has no query, fragment or user info (the expression is kept verbatim in every report, so it
/// must hold no secret).
public struct RequestSelector: Sendable, Equatable {
    public enum Key: String, Sendable, CaseIterable { case name, url }

    public struct Pair: Sendable, Equatable {
        public var key: Key
        public var value: String
    }

    public var pairs: [Pair]

    /// The selector in its canonical spelling: `{name=login}`, `{name=a,url=https://h/x}`.
    public var text: String { "{" + pairs.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",") + "}" }

    /// Whether the request's figures match every pair.
    public func matches(_ request: ProbeSummary.RequestFigures) -> Bool {
        pairs.allSatisfy { pair in
            switch pair.key {
            case .name: return request.name == pair.value
            case .url: return RequestName.comparable(request.url) == RequestName.comparable(pair.value)
            }
        }
    }

    /// Parses the text between the braces (`inner`), which starts at byte `offset` of `expression`
    /// (for the caret of an error).
    init(parsing inner: ArraySlice<UInt8>, offset: Int, expression: String) throws(ThresholdSyntaxError) {
        func failure(_ column: Int, _ problem: String) -> ThresholdSyntaxError {
            ThresholdSyntaxError(expression: expression, column: column, problem: problem)
        }
        let example = "e.g. total.p95{name=login}<300ms or errors.rate{url=https://api.example.com/x}<1%"
        var pairs: [Pair] = []
        var start = inner.startIndex
        while start <= inner.endIndex {
            let end = inner[start...].firstIndex(of: UInt8(ascii: ",")) ?? inner.endIndex
            let piece = inner[start..<end]
            let column = offset + (start - inner.startIndex)
            guard let separator = piece.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }) else {
                let blank = piece.allSatisfy { $0 == 0x20 }
                throw failure(column, blank && pairs.isEmpty ? "an empty selector: give key=value pairs, \(example)"
                              : blank ? "nothing after the comma: give key=value (keys: name, url)"
                              : "expected key=value in the selector (keys: name, url), \(example)")
            }
            let keyText = String(decoding: piece[..<separator], as: UTF8.self).trimmingWhitespace()
            guard let key = Key(rawValue: keyText.lowercased()) else {
                throw failure(column + (piece[..<separator].firstIndex { $0 != 0x20 } ?? separator) - piece.startIndex,
                              "unknown selector key '\(keyText)': use name or url (\(example))")
            }
            let valueStart = separator + 1
            let value = String(decoding: piece[valueStart...], as: UTF8.self).trimmingWhitespace()
            let valueColumn = offset + (valueStart - inner.startIndex)
            guard !value.isEmpty else { throw failure(valueColumn, "the selector's \(key.rawValue) has no value (\(example))") }
            guard !pairs.contains(where: { $0.key == key }) else {
                throw failure(column, "the selector gives \(key.rawValue) twice: a request has one")
            }
            if key == .url {
                if value.contains("?") || value.contains("#") {
                    throw failure(valueColumn, "a url selector matches URLs without their query and fragment: leave out '?…' and '#…'")
                }
                if let scheme = value.range(of: "://"), value[scheme.upperBound...].prefix(while: { $0 != "/" }).contains("@") {
                    throw failure(valueColumn, "a url selector holds no user info: leave out 'user@'")
                }
            }
            pairs.append(Pair(key: key, value: value))
            start = end + 1
        }
        self.pairs = pairs
    }
}
