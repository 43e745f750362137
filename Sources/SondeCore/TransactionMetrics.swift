/// One request/response exchange, named after Apple's `URLSessionTaskTransactionMetrics`.
///
/// Every redirect hop is its own transaction. Dates are wall-clock instants with microsecond
/// precision; a date is `nil` when its step did not happen (for example the DNS and connect
/// dates of a transaction on a reused connection). Byte counts are exact counts from libcurl.
public struct TransactionMetrics: Sendable, Equatable {
    public var request: RequestRecord
    public var response: ResponseRecord?

    public var fetchStartDate: Timestamp?
    public var domainLookupStartDate: Timestamp?
    public var domainLookupEndDate: Timestamp?
    public var connectStartDate: Timestamp?
    public var secureConnectionStartDate: Timestamp?
    public var secureConnectionEndDate: Timestamp?
    public var connectEndDate: Timestamp?
    public var requestStartDate: Timestamp?
    public var requestEndDate: Timestamp?
    public var responseStartDate: Timestamp?
    public var responseEndDate: Timestamp?

    /// "http/1.0", "http/1.1", "h2" (over TLS), "h2c" (cleartext) or "h3"; nil when no response came.
    public var networkProtocolName: String?
    /// Milliseconds from `fetchStartDate` until libcurl started this hop (HAR's `blocked`): under
    /// `--parallel`, hops to an origin that may multiplex wait in sonde's queue for its first
    /// connection to be set up; otherwise only the moment libcurl takes to pick a transfer up
    /// (µs, more on a loaded machine). Every other date and every phase comes after it, so
    /// `queue + phases.total` spans `fetchStartDate` to the hop's end. nil in reports written
    /// before sonde measured it.
    public var queue: Double?
    /// Milliseconds libcurl itself held this hop before it had a connection to use
    /// (`CURLINFO_QUEUE_TIME_T`, libcurl 8.6.0 and later; nil on older ones and in older reports).
    /// sonde keeps hops out of libcurl's own queue, so this is normally tens of µs. It lies inside
    /// `queue` and the start of the first phase, and is added to neither.
    public var libcurlQueue: Double?
    public var isReusedConnection: Bool
    public var isProxyConnection: Bool
    /// Identifies the TCP (or QUIC) connection within one run: transactions that share it share
    /// the id, numbered from 1 in the order the run first saw each connection. From libcurl's
    /// `CURLINFO_CONN_ID` on libcurl 8.2.0 and later, from the connection's 4-tuple before.
    public var connectionID: Int?
    /// Set when `--http3` raced QUIC against TCP for this transaction's connection and TCP won:
    /// why QUIC lost, in libcurl's words. nil for any other connection.
    public var http3Fallback: HTTP3Fallback?
    /// Set when this connection is HTTP/3 because the origin advertised it (`Alt-Svc`) and the
    /// run had not asked for HTTP/3: which header, on which connection. nil otherwise.
    public var altSvc: AltSvcUse?
    /// Set when this hop first went to the origin's `Alt-Svc` alternative, which did not answer,
    /// and then to the origin over TCP (this transaction): the alternative, why, and what it cost.
    public var altSvcFailure: AltSvcFailure?
    public var remoteAddress: String?
    public var remotePort: Int?
    public var localAddress: String?
    public var localPort: Int?

    public var negotiatedTLSProtocolVersion: String?
    public var negotiatedTLSCipherSuite: String?
    public var tlsSessionReused: Bool?
    public var peerCertificates: [PeerCertificate]

    public var countOfRequestHeaderBytesSent: Int64
    public var countOfRequestBodyBytesSent: Int64
    public var countOfResponseHeaderBytesReceived: Int64
    /// The response body's bytes as they came off the wire (before any Content-Encoding was decoded).
    public var countOfResponseBodyBytesReceived: Int64
    /// The response body's bytes after its Content-Encoding was decoded (what the app reads);
    /// equal to `countOfResponseBodyBytesReceived` when nothing was decoded. nil in reports
    /// written before sonde recorded it.
    public var countOfResponseBodyBytesAfterDecoding: Int64? = nil
    /// The response's `Content-Encoding` (`gzip`, `br`, …) as the server sent it; nil without one.
    public var contentEncoding: String? = nil

    public var phases: Phases
    /// Packet-level evidence of this transaction's flow; nil unless a capture ran.
    public var capture: CaptureEvidence?

    public init(
        request: RequestRecord, response: ResponseRecord? = nil,
        fetchStartDate: Timestamp? = nil, domainLookupStartDate: Timestamp? = nil, domainLookupEndDate: Timestamp? = nil,
        connectStartDate: Timestamp? = nil, secureConnectionStartDate: Timestamp? = nil,
        secureConnectionEndDate: Timestamp? = nil, connectEndDate: Timestamp? = nil,
        requestStartDate: Timestamp? = nil, requestEndDate: Timestamp? = nil,
        responseStartDate: Timestamp? = nil, responseEndDate: Timestamp? = nil,
        networkProtocolName: String? = nil, queue: Double? = nil, libcurlQueue: Double? = nil,
        isReusedConnection: Bool = false, isProxyConnection: Bool = false,
        connectionID: Int? = nil, http3Fallback: HTTP3Fallback? = nil, altSvc: AltSvcUse? = nil, altSvcFailure: AltSvcFailure? = nil, remoteAddress: String? = nil, remotePort: Int? = nil,
        localAddress: String? = nil, localPort: Int? = nil,
        negotiatedTLSProtocolVersion: String? = nil, negotiatedTLSCipherSuite: String? = nil,
        tlsSessionReused: Bool? = nil, peerCertificates: [PeerCertificate] = [],
        countOfRequestHeaderBytesSent: Int64 = 0, countOfRequestBodyBytesSent: Int64 = 0,
        countOfResponseHeaderBytesReceived: Int64 = 0, countOfResponseBodyBytesReceived: Int64 = 0,
        phases: Phases = Phases(), capture: CaptureEvidence? = nil
    ) {
        self.request = request
        self.response = response
        self.fetchStartDate = fetchStartDate
        self.domainLookupStartDate = domainLookupStartDate
        self.domainLookupEndDate = domainLookupEndDate
        self.connectStartDate = connectStartDate
        self.secureConnectionStartDate = secureConnectionStartDate
        self.secureConnectionEndDate = secureConnectionEndDate
        self.connectEndDate = connectEndDate
        self.requestStartDate = requestStartDate
        self.requestEndDate = requestEndDate
        self.responseStartDate = responseStartDate
        self.responseEndDate = responseEndDate
        self.networkProtocolName = networkProtocolName
        self.queue = queue
        self.libcurlQueue = libcurlQueue
        self.isReusedConnection = isReusedConnection
        self.isProxyConnection = isProxyConnection
        self.connectionID = connectionID
        self.http3Fallback = http3Fallback
        self.altSvc = altSvc
        self.altSvcFailure = altSvcFailure
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localAddress = localAddress
        self.localPort = localPort
        self.negotiatedTLSProtocolVersion = negotiatedTLSProtocolVersion
        self.negotiatedTLSCipherSuite = negotiatedTLSCipherSuite
        self.tlsSessionReused = tlsSessionReused
        self.peerCertificates = peerCertificates
        self.countOfRequestHeaderBytesSent = countOfRequestHeaderBytesSent
        self.countOfRequestBodyBytesSent = countOfRequestBodyBytesSent
        self.countOfResponseHeaderBytesReceived = countOfResponseHeaderBytesReceived
        self.countOfResponseBodyBytesReceived = countOfResponseBodyBytesReceived
        self.phases = phases
        self.capture = capture
    }
}

/// How an `--http3` race ended on TCP: QUIC failed (or was not ready first) and libcurl fell
/// back to HTTP/2 or HTTP/1.1 over TCP+TLS (`networkProtocolName` says which).
public struct HTTP3Fallback: Sendable, Equatable {
    /// libcurl's own account of the failed QUIC attempt: its verbose lines about it (e.g.
    /// "sendmsg() returned -1 (errno 111); QUIC connect to 127.0.0.1 port 8443 failed: Failed
    /// sending data to the peer"), joined with "; ", at most `maxReasonLength` characters; or, when
    /// libcurl logged no QUIC failure, a sentence saying TCP was ready first.
    public var reason: String

    /// The longest `reason` kept (characters).
    public static let maxReasonLength = 600

    public init(reason: String) {
        self.reason = reason
    }
}

/// A header as sent or received; order and repeated names are kept (as in HAR).
public struct HeaderField: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

public struct RequestRecord: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [HeaderField]
    public init(method: String, url: String, headers: [HeaderField]) {
        self.method = method
        self.url = url
        self.headers = headers
    }
}

public struct ResponseRecord: Sendable, Equatable {
    public var statusCode: Int
    public var headers: [HeaderField]
    public init(statusCode: Int, headers: [HeaderField]) {
        self.statusCode = statusCode
        self.headers = headers
    }
}

/// A certificate the server presented, as libcurl's CURLINFO_CERTINFO describes it, and what
/// sonde reads from its DER (the "Cert:" PEM of the same info): its fingerprint, its DNS names,
/// and its names as Go's crypto/x509 writes them (blackbox_exporter's `probe_ssl_last_chain_info`).
/// The DER facts are nil when libcurl gave no PEM or the DER did not parse.
public struct PeerCertificate: Sendable, Equatable {
    /// OpenSSL's one-line form (`O = sonde, CN = localhost`), as libcurl gives it.
    public var subject: String
    public var issuer: String
    public var serialNumber: String?
    public var signatureAlgorithm: String?
    public var publicKeyAlgorithm: String?
    public var notBefore: Timestamp?
    public var notAfter: Timestamp?
    /// SHA-256 of the certificate's DER, 64 lowercase hex digits.
    public var fingerprintSHA256: String?
    /// The subject alternative name's dNSName entries, in the certificate's order.
    public var dnsNames: [String]?
    /// The subject alternative name's iPAddress entries as text (`127.0.0.1`, `::1`), in the
    /// certificate's order; nil when not read (an IP-only certificate may have an empty subject).
    public var ipAddresses: [String]?
    /// The subject as Go's `pkix.Name.String()` writes it (`CN=localhost,O=sonde`: RFC 4514 style,
    /// most specific first).
    public var subjectDN: String?
    /// The issuer, written as `subjectDN` is.
    public var issuerDN: String?

    public init(subject: String, issuer: String, serialNumber: String? = nil, signatureAlgorithm: String? = nil,
                publicKeyAlgorithm: String? = nil, notBefore: Timestamp? = nil, notAfter: Timestamp? = nil,
                fingerprintSHA256: String? = nil, dnsNames: [String]? = nil, ipAddresses: [String]? = nil,
                subjectDN: String? = nil, issuerDN: String? = nil) {
        self.subject = subject
        self.issuer = issuer
        self.serialNumber = serialNumber
        self.signatureAlgorithm = signatureAlgorithm
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.fingerprintSHA256 = fingerprintSHA256
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.subjectDN = subjectDN
        self.issuerDN = issuerDN
    }
}

/// The packet evidence of one transaction's TCP or QUIC connection (`--capture`), matched by its
/// 4-tuple (libcurl's local port), and how it squares with libcurl's own view.
public struct CaptureEvidence: Sendable, Equatable {
    /// The connection's tuple, as in `captures[].flows[].tuple` or `captures[].quicFlows[].tuple`.
    public var flow: String
    /// "tcp", or "quic" for an h3 transaction's connection (then the fields below have the QUIC
    /// meanings their comments give).
    public var transport: String
    /// The capture saw this connection's SYN (TCP; false for QUIC).
    public var synSeen: Bool
    /// QUIC: the capture saw the client's first Initial; nil for TCP.
    public var clientInitialSeen: Bool?
    /// SYN → SYN/ACK, ms: the capture's view of libcurl's connect phase.
    public var synToSynAckMs: Double?
    /// Wireshark's `tcp.analysis.initial_rtt` (SYN → the ACK that completes the handshake), ms;
    /// QUIC: the client's first Initial → the server's first datagram (`QUICFlowEvidence.initialRttMs`).
    public var initialRttMs: Double?
    /// Retransmissions on the connection, both directions (TCP; QUIC's are encrypted: 0).
    public var retransmissions: Int
    public var resets: Int
    /// libcurl's reuse flag agrees with the capture: a new connection's SYN (QUIC: first client
    /// Initial) falls in this transaction, a reused one's before it. nil when the capture cannot tell.
    public var reuseAgrees: Bool?
    /// The wire's SYN → SYN/ACK (QUIC: first client Initial → the server's first datagram) fits
    /// inside libcurl's connect phase (1 ms of slack; libcurl's phase also holds the client's own
    /// scheduling); nil for a reused connection or when either is missing.
    public var connectAgrees: Bool?
    /// The TLS version the ServerHello chose, e.g. "TLSv1.3"; nil without TLS in the capture.
    public var tlsVersion: String?
    /// ClientHello → the client's Finished on the wire, ms: the capture's view of libcurl's TLS phase.
    /// QUIC: the client's first Initial → its first 1-RTT packet (`QUICFlowEvidence.handshakeMs`),
    /// the wire's view of libcurl's connect + TLS phases.
    public var tlsHandshakeMs: Double?
    /// The wire's handshake fits inside libcurl's TLS phase (1 ms of slack) and the ServerHello's
    /// version is the one libcurl reports; QUIC: the wire's handshake fits inside libcurl's connect
    /// + TLS phases and libcurl reports TLSv1.3, which RFC 9001 requires (`QUICCaptureCheck`);
    /// nil for a reused connection or when either view is missing.
    public var tlsAgrees: Bool?
    /// The connection's packets inside this transaction (fetch start to response end + 1 ms),
    /// offsets from the fetch start, µs; only among the connection's first 256.
    public var packets: [FlowEvidence.PacketMark]

    public init(flow: String, transport: String = "tcp", synSeen: Bool = false, clientInitialSeen: Bool? = nil,
                synToSynAckMs: Double? = nil, initialRttMs: Double? = nil,
                retransmissions: Int = 0, resets: Int = 0, reuseAgrees: Bool? = nil, connectAgrees: Bool? = nil,
                tlsVersion: String? = nil, tlsHandshakeMs: Double? = nil, tlsAgrees: Bool? = nil,
                packets: [FlowEvidence.PacketMark] = []) {
        self.flow = flow
        self.transport = transport
        self.synSeen = synSeen
        self.clientInitialSeen = clientInitialSeen
        self.synToSynAckMs = synToSynAckMs
        self.initialRttMs = initialRttMs
        self.retransmissions = retransmissions
        self.resets = resets
        self.reuseAgrees = reuseAgrees
        self.connectAgrees = connectAgrees
        self.tlsVersion = tlsVersion
        self.tlsHandshakeMs = tlsHandshakeMs
        self.tlsAgrees = tlsAgrees
        self.packets = packets
    }
}

extension TransactionMetrics: FieldModel {
    public static let blank = TransactionMetrics(request: RequestRecord(method: "", url: "", headers: []))
    public static var schemaName: String? { "transaction" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("request", &request, .required)
        try v.visit("response", &response, .field)
        try v.visit("fetchStartDate", &fetchStartDate, .field)
        try v.visit("domainLookupStartDate", &domainLookupStartDate, .field)
        try v.visit("domainLookupEndDate", &domainLookupEndDate, .field)
        try v.visit("connectStartDate", &connectStartDate, .field)
        try v.visit("secureConnectionStartDate", &secureConnectionStartDate, .field)
        try v.visit("secureConnectionEndDate", &secureConnectionEndDate, .field)
        try v.visit("connectEndDate", &connectEndDate, .field)
        try v.visit("requestStartDate", &requestStartDate, .field)
        try v.visit("requestEndDate", &requestEndDate, .field)
        try v.visit("responseStartDate", &responseStartDate, .field)
        try v.visit("responseEndDate", &responseEndDate, .field)
        try v.visit("networkProtocolName", &networkProtocolName, FieldRule(values: ["http/1.0", "http/1.1", "h2", "h2c", "h3"]))
        try v.visit("queue", &queue, .milliseconds)
        try v.visit("libcurlQueue", &libcurlQueue, .milliseconds)
        try v.visit("isReusedConnection", &isReusedConnection, .required)
        try v.visit("isProxyConnection", &isProxyConnection, .required)
        try v.visit("connectionID", &connectionID, FieldRule(unit: .identifier))
        try v.visit("http3Fallback", &http3Fallback, .field)
        try v.visit("altSvc", &altSvc, .field)
        try v.visit("altSvcFailure", &altSvcFailure, .field)
        try v.visit("remoteAddress", &remoteAddress, .field)
        try v.visit("remotePort", &remotePort, .port)
        try v.visit("localAddress", &localAddress, .field)
        try v.visit("localPort", &localPort, .port)
        try v.visit("negotiatedTLSProtocolVersion", &negotiatedTLSProtocolVersion, .field)
        try v.visit("negotiatedTLSCipherSuite", &negotiatedTLSCipherSuite, .field)
        try v.visit("tlsSessionReused", &tlsSessionReused, .field)
        try v.visit("peerCertificates", &peerCertificates, .field)
        try v.visit("countOfRequestHeaderBytesSent", &countOfRequestHeaderBytesSent, .requiredCount)
        try v.visit("countOfRequestBodyBytesSent", &countOfRequestBodyBytesSent, .requiredCount)
        try v.visit("countOfResponseHeaderBytesReceived", &countOfResponseHeaderBytesReceived, .requiredCount)
        try v.visit("countOfResponseBodyBytesReceived", &countOfResponseBodyBytesReceived, .requiredCount)
        try v.visit("countOfResponseBodyBytesAfterDecoding", &countOfResponseBodyBytesAfterDecoding, .count)
        try v.visit("contentEncoding", &contentEncoding, .field)
        try v.visit("phases", &phases, .required)
        try v.visit("capture", &capture, .field)
    }
}

extension HTTP3Fallback: FieldModel {
    public static let blank = HTTP3Fallback(reason: "")
    /// Flat formats carry the reason alone.
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .string(reason) }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("reason", &reason, FieldRule(required: true, unit: .nonEmpty))
    }
}

extension HeaderField: FieldModel {
    public static let blank = HeaderField(name: "", value: "")

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("name", &name, .required)
        try v.visit("value", &value, .required)
    }

    /// The same bytes the fields would write, in one step (each task writes some twenty headers).
    public func writeJSON(to output: inout JSONOutput) {
        output.nameValueObject(name: name, value: value)
    }
}

extension RequestRecord: FieldModel {
    public static let blank = RequestRecord(method: "", url: "", headers: [])

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("method", &method, .required)
        try v.visit("url", &url, .required)
        try v.visit("headers", &headers, .required)
    }
}

extension ResponseRecord: FieldModel {
    public static let blank = ResponseRecord(statusCode: 0, headers: [])

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("statusCode", &statusCode, FieldRule(required: true, unit: .statusCode))
        try v.visit("headers", &headers, .required)
    }
}

extension PeerCertificate: FieldModel {
    public static let blank = PeerCertificate(subject: "", issuer: "")
    public static var schemaName: String? { "certificate" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("subject", &subject, .required)
        try v.visit("issuer", &issuer, .required)
        try v.visit("serialNumber", &serialNumber, .field)
        try v.visit("signatureAlgorithm", &signatureAlgorithm, .field)
        try v.visit("publicKeyAlgorithm", &publicKeyAlgorithm, .field)
        try v.visit("notBefore", &notBefore, .field)
        try v.visit("notAfter", &notAfter, .field)
        try v.visit("fingerprintSHA256", &fingerprintSHA256, FieldRule(pattern: "^[0-9a-f]{64}$"))
        try v.visit("dnsNames", &dnsNames, .field)
        try v.visit("ipAddresses", &ipAddresses, .field)
        try v.visit("subjectDN", &subjectDN, .field)
        try v.visit("issuerDN", &issuerDN, .field)
    }
}

/// Keys in alphabetical order, as `JSONEncoder` with `.sortedKeys` writes them.
extension CaptureEvidence: FieldModel {
    public static let blank = CaptureEvidence(flow: "")
    public static var schemaName: String? { "captureEvidence" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("clientInitialSeen", &clientInitialSeen, .field)
        try v.visit("connectAgrees", &connectAgrees, .field)
        try v.visit("flow", &flow, .required)
        try v.visit("initialRttMs", &initialRttMs, .milliseconds)
        try v.visit("packets", &packets, .field)
        try v.visit("resets", &resets, .count)
        try v.visit("retransmissions", &retransmissions, .count)
        try v.visit("reuseAgrees", &reuseAgrees, .field)
        try v.visit("synSeen", &synSeen, .field)
        try v.visit("synToSynAckMs", &synToSynAckMs, .milliseconds)
        try v.visit("tlsAgrees", &tlsAgrees, .field)
        try v.visit("tlsHandshakeMs", &tlsHandshakeMs, .milliseconds)
        try v.visit("tlsVersion", &tlsVersion, .field)
        try v.visit("transport", &transport, FieldRule(values: ["tcp", "quic"]))
    }
}
