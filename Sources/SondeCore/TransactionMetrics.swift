/// One request/response exchange, named after Apple's `URLSessionTaskTransactionMetrics`.
///
/// Every redirect hop is its own transaction. Dates are wall-clock instants with microsecond
/// precision; a date is `nil` when its step did not happen (for example the DNS and connect
/// dates of a transaction on a reused connection). Byte counts are exact counts from libcurl.
public struct TransactionMetrics: Codable, Sendable, Equatable {
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
    public var countOfResponseBodyBytesReceived: Int64

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

    private enum CodingKeys: String, CodingKey {
        case request, response, fetchStartDate, domainLookupStartDate, domainLookupEndDate, connectStartDate
        case secureConnectionStartDate, secureConnectionEndDate, connectEndDate, requestStartDate, requestEndDate
        case responseStartDate, responseEndDate, networkProtocolName, queue, libcurlQueue, isReusedConnection
        case isProxyConnection, connectionID, http3Fallback, altSvc, altSvcFailure, remoteAddress, remotePort, localAddress, localPort
        case negotiatedTLSProtocolVersion, negotiatedTLSCipherSuite, tlsSessionReused, peerCertificates
        case countOfRequestHeaderBytesSent, countOfRequestBodyBytesSent
        case countOfResponseHeaderBytesReceived, countOfResponseBodyBytesReceived, phases, capture
    }

    /// Encodes every key, writing `null` for absent values, so a report always has the full shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(request, forKey: .request)
        try c.encode(response, forKey: .response)
        try c.encode(fetchStartDate, forKey: .fetchStartDate)
        try c.encode(domainLookupStartDate, forKey: .domainLookupStartDate)
        try c.encode(domainLookupEndDate, forKey: .domainLookupEndDate)
        try c.encode(connectStartDate, forKey: .connectStartDate)
        try c.encode(secureConnectionStartDate, forKey: .secureConnectionStartDate)
        try c.encode(secureConnectionEndDate, forKey: .secureConnectionEndDate)
        try c.encode(connectEndDate, forKey: .connectEndDate)
        try c.encode(requestStartDate, forKey: .requestStartDate)
        try c.encode(requestEndDate, forKey: .requestEndDate)
        try c.encode(responseStartDate, forKey: .responseStartDate)
        try c.encode(responseEndDate, forKey: .responseEndDate)
        try c.encode(networkProtocolName, forKey: .networkProtocolName)
        try c.encode(queue, forKey: .queue)
        try c.encode(libcurlQueue, forKey: .libcurlQueue)
        try c.encode(isReusedConnection, forKey: .isReusedConnection)
        try c.encode(isProxyConnection, forKey: .isProxyConnection)
        try c.encode(connectionID, forKey: .connectionID)
        try c.encode(http3Fallback, forKey: .http3Fallback)
        try c.encode(altSvc, forKey: .altSvc)
        try c.encode(altSvcFailure, forKey: .altSvcFailure)
        try c.encode(remoteAddress, forKey: .remoteAddress)
        try c.encode(remotePort, forKey: .remotePort)
        try c.encode(localAddress, forKey: .localAddress)
        try c.encode(localPort, forKey: .localPort)
        try c.encode(negotiatedTLSProtocolVersion, forKey: .negotiatedTLSProtocolVersion)
        try c.encode(negotiatedTLSCipherSuite, forKey: .negotiatedTLSCipherSuite)
        try c.encode(tlsSessionReused, forKey: .tlsSessionReused)
        try c.encode(peerCertificates, forKey: .peerCertificates)
        try c.encode(countOfRequestHeaderBytesSent, forKey: .countOfRequestHeaderBytesSent)
        try c.encode(countOfRequestBodyBytesSent, forKey: .countOfRequestBodyBytesSent)
        try c.encode(countOfResponseHeaderBytesReceived, forKey: .countOfResponseHeaderBytesReceived)
        try c.encode(countOfResponseBodyBytesReceived, forKey: .countOfResponseBodyBytesReceived)
        try c.encode(phases, forKey: .phases)
        try c.encode(capture, forKey: .capture)
    }
}

/// How an `--http3` race ended on TCP: QUIC failed (or was not ready first) and libcurl fell
/// back to HTTP/2 or HTTP/1.1 over TCP+TLS (`networkProtocolName` says which).
public struct HTTP3Fallback: Codable, Sendable, Equatable {
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

extension HTTP3Fallback: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in o.member("reason", reason) }
    }
}

/// A header as sent or received; order and repeated names are kept (as in HAR).
public struct HeaderField: Codable, Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

public struct RequestRecord: Codable, Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [HeaderField]
    public init(method: String, url: String, headers: [HeaderField]) {
        self.method = method
        self.url = url
        self.headers = headers
    }
}

public struct ResponseRecord: Codable, Sendable, Equatable {
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
public struct PeerCertificate: Codable, Sendable, Equatable {
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
public struct CaptureEvidence: Codable, Sendable, Equatable {
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

    private enum CodingKeys: String, CodingKey {
        case flow, transport, synSeen, clientInitialSeen, synToSynAckMs, initialRttMs, retransmissions, resets, reuseAgrees
        case connectAgrees, tlsVersion, tlsHandshakeMs, tlsAgrees, packets
    }

    /// `transport` and `clientInitialSeen` may be missing: evidence written before QUIC still reads.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        flow = try c.decode(String.self, forKey: .flow)
        transport = try c.decodeIfPresent(String.self, forKey: .transport) ?? "tcp"
        synSeen = try c.decode(Bool.self, forKey: .synSeen)
        clientInitialSeen = try c.decodeIfPresent(Bool.self, forKey: .clientInitialSeen)
        synToSynAckMs = try c.decodeIfPresent(Double.self, forKey: .synToSynAckMs)
        initialRttMs = try c.decodeIfPresent(Double.self, forKey: .initialRttMs)
        retransmissions = try c.decode(Int.self, forKey: .retransmissions)
        resets = try c.decode(Int.self, forKey: .resets)
        reuseAgrees = try c.decodeIfPresent(Bool.self, forKey: .reuseAgrees)
        connectAgrees = try c.decodeIfPresent(Bool.self, forKey: .connectAgrees)
        tlsVersion = try c.decodeIfPresent(String.self, forKey: .tlsVersion)
        tlsHandshakeMs = try c.decodeIfPresent(Double.self, forKey: .tlsHandshakeMs)
        tlsAgrees = try c.decodeIfPresent(Bool.self, forKey: .tlsAgrees)
        packets = try c.decode([FlowEvidence.PacketMark].self, forKey: .packets)
    }

    /// Absent values are written as null, as `JSONOutput` writes them.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(flow, forKey: .flow)
        try c.encode(transport, forKey: .transport)
        try c.encode(synSeen, forKey: .synSeen)
        try c.encode(clientInitialSeen, forKey: .clientInitialSeen)
        try c.encode(synToSynAckMs, forKey: .synToSynAckMs)
        try c.encode(initialRttMs, forKey: .initialRttMs)
        try c.encode(retransmissions, forKey: .retransmissions)
        try c.encode(resets, forKey: .resets)
        try c.encode(reuseAgrees, forKey: .reuseAgrees)
        try c.encode(connectAgrees, forKey: .connectAgrees)
        try c.encode(tlsVersion, forKey: .tlsVersion)
        try c.encode(tlsHandshakeMs, forKey: .tlsHandshakeMs)
        try c.encode(tlsAgrees, forKey: .tlsAgrees)
        try c.encode(packets, forKey: .packets)
    }
}

extension TransactionMetrics: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("request", request)
            o.member("response", response)
            o.member("fetchStartDate", fetchStartDate)
            o.member("domainLookupStartDate", domainLookupStartDate)
            o.member("domainLookupEndDate", domainLookupEndDate)
            o.member("connectStartDate", connectStartDate)
            o.member("secureConnectionStartDate", secureConnectionStartDate)
            o.member("secureConnectionEndDate", secureConnectionEndDate)
            o.member("connectEndDate", connectEndDate)
            o.member("requestStartDate", requestStartDate)
            o.member("requestEndDate", requestEndDate)
            o.member("responseStartDate", responseStartDate)
            o.member("responseEndDate", responseEndDate)
            o.member("networkProtocolName", networkProtocolName)
            o.member("queue", queue)
            o.member("libcurlQueue", libcurlQueue)
            o.member("isReusedConnection", isReusedConnection)
            o.member("isProxyConnection", isProxyConnection)
            o.member("connectionID", connectionID)
            o.member("http3Fallback", http3Fallback)
            o.member("altSvc", altSvc)
            o.member("altSvcFailure", altSvcFailure)
            o.member("remoteAddress", remoteAddress)
            o.member("remotePort", remotePort)
            o.member("localAddress", localAddress)
            o.member("localPort", localPort)
            o.member("negotiatedTLSProtocolVersion", negotiatedTLSProtocolVersion)
            o.member("negotiatedTLSCipherSuite", negotiatedTLSCipherSuite)
            o.member("tlsSessionReused", tlsSessionReused)
            o.member("peerCertificates", peerCertificates)
            o.member("countOfRequestHeaderBytesSent", countOfRequestHeaderBytesSent)
            o.member("countOfRequestBodyBytesSent", countOfRequestBodyBytesSent)
            o.member("countOfResponseHeaderBytesReceived", countOfResponseHeaderBytesReceived)
            o.member("countOfResponseBodyBytesReceived", countOfResponseBodyBytesReceived)
            o.member("phases", phases)
            o.member("capture", capture)
        }
    }
}

extension HeaderField: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.nameValueObject(name: name, value: value)
    }
}

extension RequestRecord: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("method", method)
            o.member("url", url)
            o.member("headers", headers)
        }
    }
}

extension ResponseRecord: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("statusCode", statusCode)
            o.member("headers", headers)
        }
    }
}

extension PeerCertificate: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("subject", subject)
            o.member("issuer", issuer)
            o.member("serialNumber", serialNumber)
            o.member("signatureAlgorithm", signatureAlgorithm)
            o.member("publicKeyAlgorithm", publicKeyAlgorithm)
            o.member("notBefore", notBefore)
            o.member("notAfter", notAfter)
            o.member("fingerprintSHA256", fingerprintSHA256)
            o.key("dnsNames")
            if let dnsNames { o.array(dnsNames) { $0.string($1) } } else { o.null() }
            o.key("ipAddresses")
            if let ipAddresses { o.array(ipAddresses) { $0.string($1) } } else { o.null() }
            o.member("subjectDN", subjectDN)
            o.member("issuerDN", issuerDN)
        }
    }
}

extension CaptureEvidence: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("clientInitialSeen", clientInitialSeen)
            o.member("connectAgrees", connectAgrees)
            o.member("flow", flow)
            o.member("initialRttMs", initialRttMs)
            o.member("packets", packets)
            o.member("resets", resets)
            o.member("retransmissions", retransmissions)
            o.member("reuseAgrees", reuseAgrees)
            o.member("synSeen", synSeen)
            o.member("synToSynAckMs", synToSynAckMs)
            o.member("tlsAgrees", tlsAgrees)
            o.member("tlsHandshakeMs", tlsHandshakeMs)
            o.member("tlsVersion", tlsVersion)
            o.member("transport", transport)
        }
    }
}
