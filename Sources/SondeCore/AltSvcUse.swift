/// Why a transaction's connection is HTTP/3 although the run did not ask for it: the origin
/// advertised h3 in an `Alt-Svc` response header (RFC 7838), and the next new connection to it
/// went to that alternative over QUIC, as URLSession does. Set on every transaction such a
/// connection carries; nil on any other.
public struct AltSvcUse: Codable, Sendable, Equatable {
    /// Where the advertisement came from.
    public enum Source: String, Codable, Sendable {
        /// A response of this run (`header`, `advertisedOnConnection`, `advertisedOver` and
        /// `advertisedAt` say which).
        case response
        /// The Alt-Svc cache file given with `--alt-svc` (learned by an earlier run).
        case cacheFile
    }

    public var source: Source
    /// The QUIC connection's destination, `host:port` (the advertised alternative).
    public var alternative: String
    /// The `Alt-Svc` header value that advertised h3 (at most `maxHeaderLength` characters).
    public var header: String?
    /// The connection whose response carried `header` (a `connectionID` of this run).
    public var advertisedOnConnection: Int?
    /// That connection's protocol (`networkProtocolName`, e.g. "h2").
    public var advertisedOver: String?
    /// When that response's first byte arrived.
    public var advertisedAt: Timestamp?

    /// The longest `header` kept (characters).
    public static let maxHeaderLength = 512

    public init(source: Source, alternative: String, header: String? = nil, advertisedOnConnection: Int? = nil,
                advertisedOver: String? = nil, advertisedAt: Timestamp? = nil) {
        self.source = source
        self.alternative = alternative
        self.header = header.map { $0.count > Self.maxHeaderLength ? String($0.prefix(Self.maxHeaderLength - 1)) + "…" : $0 }
        self.advertisedOnConnection = advertisedOnConnection
        self.advertisedOver = advertisedOver
        self.advertisedAt = advertisedAt
    }

    private enum CodingKeys: String, CodingKey {
        case source, alternative, header, advertisedOnConnection, advertisedOver, advertisedAt
    }

    /// Every key, `null` for absent values, as `writeJSON` writes them (and the schema wants).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encode(alternative, forKey: .alternative)
        try c.encode(header, forKey: .header)
        try c.encode(advertisedOnConnection, forKey: .advertisedOnConnection)
        try c.encode(advertisedOver, forKey: .advertisedOver)
        try c.encode(advertisedAt, forKey: .advertisedAt)
    }

    /// One line for people: "h2 connection #1 advertised h3=":4433"; ma=3600 → 127.0.0.1:4433".
    public var summary: String {
        switch source {
        case .cacheFile:
            return "Alt-Svc cache file → \(alternative)"
        case .response:
            let on = advertisedOnConnection.map { " connection #\($0)" } ?? ""
            return "Alt-Svc on \(advertisedOver ?? "a")\(on): \(header ?? "h3") → \(alternative)"
        }
    }
}

extension AltSvcUse: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("source", source.rawValue)
            o.member("alternative", alternative)
            o.member("header", header)
            o.member("advertisedOnConnection", advertisedOnConnection)
            o.member("advertisedOver", advertisedOver)
            o.member("advertisedAt", advertisedAt)
        }
    }
}

extension AltSvcUse: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var source: Source?, alternative: String?, header: String?, connection: Int?, over: String?, at: Timestamp?
        try reader.readObject { (r: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            switch key {
            case "source": source = Source(rawValue: try r.readString())
            case "alternative": alternative = try r.readString()
            case "header": header = try r.readOptionalString()
            case "advertisedOnConnection": connection = try r.readOptionalInt()
            case "advertisedOver": over = try r.readOptionalString()
            case "advertisedAt": at = try r.readOptional(Timestamp.self)
            default: try r.skipValue()
            }
        }
        guard let source, let alternative else { throw reader.error("an altSvc needs a known source and an alternative") }
        self.init(source: source, alternative: alternative, header: header, advertisedOnConnection: connection,
                  advertisedOver: over, advertisedAt: at)
    }
}
