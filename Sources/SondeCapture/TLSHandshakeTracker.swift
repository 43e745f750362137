import SondeCore

/// Turns the records of a connection's two directions (`TLSRecordScanner`) into its TLS
/// milestones (`FlowEvidence.TLS`). Records arrive in capture order, so each record is read
/// knowing what came before it on both sides: the negotiated version decides whether the
/// client's first encrypted record is its Finished (TLS 1.3) or its first application data.
///
/// Once a direction has shown its first application data (or 64 records without it) its scanner
/// stops: a long transfer costs one comparison per segment.
final class TLSHandshakeTracker {
    private(set) var client = TLSRecordScanner()
    private(set) var server = TLSRecordScanner()
    private var tls = FlowEvidence.TLS()
    private var clientHelloSeen = false, serverHelloSeen = false
    private var recordsPerSide = [0, 0]
    private static let recordLimit = 64

    /// Starts following a connection whose client payload begins with `first`: nil unless those
    /// bytes are a TLS handshake record header (type 22, major version 3).
    static func startingWith(_ first: UnsafeRawBufferPointer) -> TLSHandshakeTracker? {
        guard first.count >= 3, first[0] == 22, first[1] == 3 else { return nil }
        return TLSHandshakeTracker()
    }

    /// Where each direction's stream starts (ISN + 1), when the handshake was seen.
    func start(clientAt: UInt32?, serverAt: UInt32?) {
        if let clientAt { client.start(at: clientAt) }
        if let serverAt { server.start(at: serverAt) }
    }

    func add(fromClient: Bool, sequence: UInt32, length: Int, captured: UnsafeRawBufferPointer, timestampNanos: Int64) {
        // Collected first, read after: reading a record changes the scanners' settings.
        var records: [TLSRecordScanner.Record] = []
        if fromClient {
            client.consume(sequence: sequence, length: length, captured: captured, timestampNanos: timestampNanos) { records.append($0) }
            records.forEach(clientRecord)
        } else {
            server.consume(sequence: sequence, length: length, captured: captured, timestampNanos: timestampNanos) { records.append($0) }
            records.forEach(serverRecord)
        }
        if clientHelloSeen { client.keepsHandshakeBodies = false }
        if serverHelloSeen { server.keepsHandshakeBodies = false }
        if tls.clientFirstApplicationDataAt != nil || recordsPerSide[0] >= Self.recordLimit { client.finish() }
        if tls.serverFirstApplicationDataAt != nil || recordsPerSide[1] >= Self.recordLimit { server.finish() }
    }

    func evidence() -> FlowEvidence.TLS {
        var result = tls
        if let hello = result.clientHelloAt, let finished = result.clientFinishedAt {
            result.handshakeMs = Double(finished.microsecondsSince1970 - hello.microsecondsSince1970) / 1000
        }
        result.problem = client.problem.map { "client → server: " + $0 } ?? server.problem.map { "server → client: " + $0 }
        return result
    }

    private var isTLS13: Bool { tls.version == "TLSv1.3" }

    private func clientRecord(_ record: TLSRecordScanner.Record) {
        let at = Self.stamp(record.timestampNanos)
        switch record.contentType {
        case 22:
            if let body = record.body, TLSHelloParser.messageType(body) == 1 {
                if !clientHelloSeen, let hello = TLSHelloParser.clientHello(body) {
                    clientHelloSeen = true
                    tls.clientHelloAt = at
                    tls.serverName = hello.serverName
                    tls.offeredAlpn = hello.alpn
                    tls.offeredVersions = hello.versions
                }
            } else if serverHelloSeen && !isTLS13 && tls.clientChangeCipherSpecAt != nil && tls.clientFinishedAt == nil {
                tls.clientFinishedAt = at  // TLS ≤ 1.2: the encrypted handshake record after ChangeCipherSpec
            }
        case 20:
            if tls.clientChangeCipherSpecAt == nil { tls.clientChangeCipherSpecAt = at }
        case 21:
            tls.alerts += 1
        case 23:
            guard tls.version != nil else { break }  // no ServerHello seen: the record's role is unknown
            if isTLS13 && tls.clientFinishedAt == nil {
                tls.clientFinishedAt = at
            } else if tls.clientFirstApplicationDataAt == nil {
                tls.clientFirstApplicationDataAt = at
            }
        default:
            break
        }
        recordsPerSide[0] += 1
    }

    private func serverRecord(_ record: TLSRecordScanner.Record) {
        let at = Self.stamp(record.timestampNanos)
        switch record.contentType {
        case 22:
            if let body = record.body, TLSHelloParser.messageType(body) == 2 {
                if !serverHelloSeen, let hello = TLSHelloParser.serverHello(body) {
                    if hello.isHelloRetryRequest {
                        tls.helloRetryRequest = true
                    } else {
                        serverHelloSeen = true
                        tls.serverHelloAt = at
                        tls.version = hello.version
                        tls.cipherSuiteCode = TLSHelloParser.hex(hello.cipherSuiteCode)
                        tls.cipherSuite = TLSHelloParser.cipherSuiteName(hello.cipherSuiteCode) ?? tls.cipherSuiteCode
                        tls.alpn = hello.alpn
                    }
                }
            } else if tls.serverChangeCipherSpecAt != nil && !isTLS13 && tls.serverFinishedAt == nil {
                tls.serverFinishedAt = at
            }
        case 20:
            if tls.serverChangeCipherSpecAt == nil { tls.serverChangeCipherSpecAt = at }
        case 21:
            tls.alerts += 1
        case 23:
            // TLS 1.3: the server's encrypted flight (EncryptedExtensions … Finished) comes before
            // the client's Finished; what it sends after that is post-handshake.
            if tls.version != nil && (!isTLS13 || tls.clientFinishedAt != nil) && tls.serverFirstApplicationDataAt == nil {
                tls.serverFirstApplicationDataAt = at
            }
        default:
            break
        }
        recordsPerSide[1] += 1
    }

    private static func stamp(_ nanos: Int64) -> Timestamp { Timestamp(microsecondsSince1970: nanos / 1000) }
}
