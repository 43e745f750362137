/// Why a transaction's connection is HTTP/3 although the run did not ask for it: the origin
/// advertised h3 in an `Alt-Svc` response header (RFC 7838), and the next new connection to it
/// went to that alternative over QUIC, as URLSession does. Set on every transaction such a
/// connection carries; nil on any other.
public struct AltSvcUse: Sendable, Equatable {
    /// Where the advertisement came from.
    public enum Source: String, Sendable, CaseIterable, ModelValue {
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

extension AltSvcUse: FieldModel {
    public static let blank = AltSvcUse(source: .response, alternative: "")
    public static var schemaName: String? { "altSvc" }
    /// Flat formats carry the summary line.
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .string(summary) }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("source", &source, .required)
        try v.visit("alternative", &alternative, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("header", &header, .field)
        try v.visit("advertisedOnConnection", &advertisedOnConnection, .field)
        try v.visit("advertisedOver", &advertisedOver, .field)
        try v.visit("advertisedAt", &advertisedAt, .field)
    }
}
