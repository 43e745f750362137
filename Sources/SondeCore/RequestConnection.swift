/// The connection one request of a resume trial went out on, as libcurl reports it: whether it
/// was opened for the request or reused from the pool, its client port, and what opening it cost.
///
/// Invariants: `connectMs` and `tlsMs` are nil on a reused connection (nothing was set up for
/// the request) and `tlsMs` is nil without TLS; all durations are milliseconds (µs precision).
public struct RequestConnection: Sendable, Equatable {
    /// True when the request went out on a connection left in the pool by an earlier request.
    public var isReusedConnection: Bool
    /// The client's port of the connection, nil when libcurl had none (no connection).
    public var localPort: Int?
    /// From the start of the request to the TCP (or QUIC) connection being up: name lookup
    /// included, as libcurl's CURLINFO_CONNECT_TIME_T counts it.
    public var connectMs: Double?
    /// The TLS handshake on that connection (CURLINFO_APPCONNECT_TIME_T less the connect time).
    public var tlsMs: Double?

    public init(isReusedConnection: Bool, localPort: Int?, connectMs: Double?, tlsMs: Double?) {
        self.isReusedConnection = isReusedConnection
        self.localPort = localPort
        self.connectMs = connectMs
        self.tlsMs = tlsMs
    }
}

extension RequestConnection: FieldModel {
    public static let blank = RequestConnection(isReusedConnection: false, localPort: nil, connectMs: nil, tlsMs: nil)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("isReusedConnection", &isReusedConnection, .required)
        try v.visit("localPort", &localPort, .port)
        try v.visit("connectMs", &connectMs, .milliseconds)
        try v.visit("tlsMs", &tlsMs, .milliseconds)
    }
}
