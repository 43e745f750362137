import Foundation
import Testing
@testable import SondeCapture
import SondeCore

/// Synthetic QUIC datagrams built byte by byte (RFC 9000 §17): long headers, coalesced packets,
/// padding, truncation and lying Length fields; UDP over IPv4 and IPv6; a connection's figures.
enum QUICBytes {
    /// A QUIC variable-length integer (§16) in its shortest form.
    static func varint(_ value: Int) -> [UInt8] {
        switch value {
        case ..<64: return [UInt8(value)]
        case ..<16384: return [0x40 | UInt8(value >> 8), UInt8(value & 0xFF)]
        default: return [0x80 | UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
    }

    /// A long-header packet: type bits (v1: 0 Initial, 1 0-RTT, 2 Handshake), version, IDs, for an
    /// Initial an empty token, then Length and `payload` bytes (packet number and ciphertext).
    static func long(typeBits: UInt8, version: UInt32 = 1, dcid: [UInt8], scid: [UInt8], payload: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xC0 | typeBits << 4]
        bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: version >> $0) }
        bytes += [UInt8(dcid.count)] + dcid + [UInt8(scid.count)] + scid
        let v1Type = version == QUICHeaderParser.version2 ? (typeBits &+ 3) & 3 : typeBits
        if v1Type == 0 { bytes += [0] }  // token length 0
        return bytes + varint(payload) + [UInt8](repeating: 0xAA, count: payload)
    }

    static func initial(dcid: [UInt8], scid: [UInt8], payload: Int = 1000) -> [UInt8] { long(typeBits: 0, dcid: dcid, scid: scid, payload: payload) }
    static func handshake(dcid: [UInt8], scid: [UInt8], payload: Int = 100) -> [UInt8] { long(typeBits: 2, dcid: dcid, scid: scid, payload: payload) }
    /// A short-header (1-RTT) packet: its destination ID, then `payload` bytes.
    static func short(dcid: [UInt8], payload: Int = 40) -> [UInt8] { [0x41] + dcid + [UInt8](repeating: 0xBB, count: payload) }

    /// A raw-IP frame (DLT_RAW) with a UDP header around `payload`.
    static func frame(_ payload: [UInt8], from sourcePort: UInt16, to destinationPort: UInt16, ipv6: Bool = false) -> [UInt8] {
        let udpLength = 8 + payload.count
        let udp: [UInt8] = [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xFF),
                            UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0] + payload
        if ipv6 {
            return [0x60, 0, 0, 0, UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 17, 64]
                + [UInt8](repeating: 0, count: 15) + [1] + [UInt8](repeating: 0, count: 15) + [2] + udp
        }
        let total = 20 + udpLength
        return [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2] + udp
    }

    static func datagram(_ frame: [UInt8], at nanos: Int64, _ body: (UDPDatagram) -> Void) {
        frame.withUnsafeBytes { raw in
            guard case .udp(let datagram)? = PacketDecoder.decodePacket(raw, link: .raw, timestampNanos: nanos) else {
                Issue.record("not decoded as UDP")
                return
            }
            body(datagram)
        }
    }

    static func parse(_ bytes: [UInt8], length: Int? = nil) -> QUICHeaderParser.Datagram {
        bytes.withUnsafeBytes { QUICHeaderParser.parse($0, length: length ?? bytes.count) }
    }
}

@Suite struct QUICHeaderTests {
    let client: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    let server: [UInt8] = [9, 9, 9, 9]
    let original: [UInt8] = Array(0..<20)

    @Test func coalescedPacketsAreWalkedByTheirLengthFields() {
        let initial = QUICBytes.initial(dcid: client, scid: server, payload: 300)
        let handshake = QUICBytes.handshake(dcid: client, scid: server, payload: 700)
        let short = QUICBytes.short(dcid: client, payload: 50)
        let parsed = QUICBytes.parse(initial + handshake + short)
        #expect(parsed.problem == nil)
        #expect(parsed.packets.map(\.type) == [.initial, .handshake, .oneRTT])
        #expect(parsed.packets.map(\.length) == [initial.count, handshake.count, short.count])
        #expect(parsed.packets[0].destinationID == client && parsed.packets[0].sourceID == server && parsed.packets[0].version == 1)
        #expect(parsed.packets[2].version == nil)
    }

    @Test func zeroBytesAfterALongHeaderArePaddingNotAPacket() {
        let initial = QUICBytes.initial(dcid: original, scid: client, payload: 200)
        let parsed = QUICBytes.parse(initial + [UInt8](repeating: 0, count: 900))
        #expect(parsed.packets.map(\.type) == [.initial] && parsed.paddingBytes == 900 && parsed.problem == nil)
        // A datagram that starts with a short header is one 1-RTT packet, whatever its first byte.
        #expect(QUICBytes.parse([0x00, 1, 2, 3]).packets.map(\.type) == [.oneRTT])
    }

    @Test func version2TypeBitsMeanWhatVersion1sDo() {
        let v2 = QUICHeaderParser.version2
        let bytes = QUICBytes.long(typeBits: 1, version: v2, dcid: client, scid: server, payload: 30)
            + QUICBytes.long(typeBits: 3, version: v2, dcid: client, scid: server, payload: 30)
        #expect(QUICBytes.parse(bytes).packets.map(\.type) == [.initial, .handshake], "RFC 9369: 1 is Initial, 3 Handshake")
        #expect(QUICHeaderParser.packetType(bits: 0, version: v2) == .retry)
        #expect(QUICHeaderParser.packetType(bits: 3, version: 1) == .retry)
    }

    @Test func versionNegotiationRetryAndUnknownVersionsRunToTheDatagramsEnd() {
        let negotiation: [UInt8] = [0x80, 0, 0, 0, 0, 4] + client + [4] + server + [0, 0, 0, 1, 0x6B, 0x33, 0x43, 0xCF]
        #expect(QUICBytes.parse(negotiation).packets.map(\.type) == [.versionNegotiation])
        let retry: [UInt8] = [0xF0, 0, 0, 0, 1, 4] + server + [8] + client + [UInt8](repeating: 7, count: 40)
        #expect(QUICBytes.parse(retry).packets.map(\.type) == [.retry])
        #expect(QUICBytes.parse(retry).packets.first?.length == retry.count)
        let unknown = QUICBytes.long(typeBits: 0, version: 0x1A2A_3A4A, dcid: client, scid: server, payload: 30)
        #expect(QUICBytes.parse(unknown + unknown).packets.map(\.type) == [.unknownVersion], "no Length to walk by")
    }

    /// Every cut of a coalesced datagram (a snap length, a damaged file), lying Length fields and
    /// IDs too long for v1: a problem or fewer packets, never a trap or a read past the bytes.
    @Test func truncatedAndLyingHeadersStopWithAProblem() {
        let datagram = QUICBytes.initial(dcid: original, scid: client, payload: 60) + QUICBytes.handshake(dcid: original, scid: client, payload: 60)
        for cut in 0..<datagram.count {
            let parsed = Array(datagram[..<cut]).withUnsafeBytes { QUICHeaderParser.parse($0, length: datagram.count) }
            // Cut inside a header: a problem. Cut inside the last packet's ciphertext: every header
            // was read, so both packets count (their ciphertext is not read anyway).
            if parsed.problem == nil {
                #expect(parsed.packets.count == 2 && cut >= datagram.count - 60, "cut at \(cut)")
            }
            #expect(parsed.packets.count <= 2)
            // The same bytes as a whole datagram: a header cut short, or a Length past its end.
            let alone = QUICBytes.parse(Array(datagram[..<cut]))
            if cut > 0 && cut < 70 { #expect(alone.problem != nil && alone.packets.isEmpty, "cut at \(cut): \(alone)") }
        }
        // A Length of 2^30: past the datagram's end.
        var lying = QUICBytes.initial(dcid: client, scid: server, payload: 10)
        let lengthAt = 1 + 4 + 1 + client.count + 1 + server.count + 1
        lying.replaceSubrange(lengthAt..<(lengthAt + 1), with: [0xC0, 0, 0, 0, 0x40, 0, 0, 0])
        #expect(QUICBytes.parse(lying).problem?.contains("Length") == true)
        // The largest varint (2^62 − 1) is refused before any arithmetic.
        lying.replaceSubrange(lengthAt..<(lengthAt + 8), with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(QUICBytes.parse(lying).problem != nil && QUICBytes.parse(lying).packets.isEmpty)
        let longID: [UInt8] = [0xC0, 0, 0, 0, 1, 21] + [UInt8](repeating: 1, count: 21) + [0, 0, 0]
        #expect(QUICBytes.parse(longID).problem?.contains("longer than 20") == true)
        // Coalesced packets are bounded per datagram.
        let tiny = QUICBytes.handshake(dcid: [], scid: [], payload: 1)
        let many = QUICBytes.parse(Array([[UInt8]](repeating: tiny, count: 100).joined()))
        #expect(many.packets.count == QUICHeaderParser.packetLimit && many.problem != nil)
    }

    @Test func randomDatagramsNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        var packets = 0
        for round in 0..<20_000 {
            var bytes = (0..<Int.random(in: 0...80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round % 2 == 0, bytes.count > 6 { bytes[0] |= 0x80; bytes[1] = 0; bytes[2] = 0; bytes[3] = 0; bytes[4] = 1 }
            let declared = bytes.count + Int.random(in: 0...3, using: &generator) * 10
            let parsed = bytes.withUnsafeBytes { QUICHeaderParser.parse($0, length: declared) }
            packets += parsed.packets.count
            #expect(parsed.packets.reduce(0) { $0 + $1.length } + parsed.paddingBytes <= declared)
        }
        #expect(packets > 0)
    }
}

@Suite struct UDPDecoderTests {
    @Test func udpOverIPv4AndIPv6() {
        let payload = QUICBytes.initial(dcid: [1, 2], scid: [3], payload: 20)
        for ipv6 in [false, true] {
            QUICBytes.datagram(QUICBytes.frame(payload, from: 40000, to: 443, ipv6: ipv6), at: 7) { datagram in
                #expect(datagram.source.port == 40000 && datagram.destination.port == 443)
                #expect(datagram.payloadLength == payload.count && Array(datagram.payload) == payload)
                #expect(datagram.ipLength == payload.count + 8 + (ipv6 ? 40 : 20))
                #expect(datagram.destination.text == (ipv6 ? "[::2]:443" : "127.0.0.2:443"))
            }
        }
    }

    @Test func aUDPLengthPastTheIPPayloadIsNotDecoded() {
        var frame = QUICBytes.frame([1, 2, 3], from: 1, to: 2)
        frame[24] = 0x10  // UDP length 4096 in a 31-byte IP packet
        let decoded = frame.withUnsafeBytes { PacketDecoder.decodePacket($0, link: .raw, timestampNanos: 0) }
        #expect(decoded == nil)
        let short = Array(QUICBytes.frame([1, 2, 3], from: 1, to: 2).prefix(25))  // cut inside the UDP header
        #expect(short.withUnsafeBytes { PacketDecoder.decodePacket($0, link: .raw, timestampNanos: 0) } == nil)
        #expect(QUICBytes.frame([1], from: 1, to: 2).withUnsafeBytes { PacketDecoder.decode($0, link: .raw, timestampNanos: 0) } == nil,
                "decode is TCP only")
    }
}

@Suite struct QUICFlowAnalyzerTests {
    let clientID: [UInt8] = [0xC1, 0xC1, 0xC1, 0xC1, 0xC1, 0xC1, 0xC1, 0xC1]
    let serverID: [UInt8] = [0x5E, 0x5E, 0x5E, 0x5E]
    let original: [UInt8] = [0x0D, 0x0D, 0x0D, 0x0D, 0x0D, 0x0D, 0x0D, 0x0D]
    static let ms: Int64 = 1_000_000
    static let start: Int64 = 1_700_000_000_000_000_000

    /// One handshake: client Initial (t0), server Initial+Handshake (t0+1.5 ms), client
    /// Initial+Handshake+1-RTT (t0+3 ms), server 1-RTT (t0+4 ms); the client's IDs are `clientID`.
    func handshake(_ analyzer: inout QUICFlowAnalyzer, at t0: Int64, clientID: [UInt8]) {
        func c2s(_ payload: [UInt8], _ at: Int64) {
            QUICBytes.datagram(QUICBytes.frame(payload, from: 40000, to: 443), at: at) { datagram in
                let added = analyzer.add(datagram)
                #expect(added)
            }
        }
        func s2c(_ payload: [UInt8], _ at: Int64) {
            // The reply goes from 127.0.0.2 to 127.0.0.1.
            var frame = QUICBytes.frame(payload, from: 443, to: 40000)
            frame.replaceSubrange(12..<20, with: [127, 0, 0, 2, 127, 0, 0, 1])
            QUICBytes.datagram(frame, at: at) { datagram in
                let added = analyzer.add(datagram)
                #expect(added)
            }
        }
        c2s(QUICBytes.initial(dcid: original, scid: clientID, payload: 1150), t0)
        s2c(QUICBytes.initial(dcid: clientID, scid: serverID, payload: 100) + QUICBytes.handshake(dcid: clientID, scid: serverID, payload: 900), t0 + 3 * Self.ms / 2)
        c2s(QUICBytes.initial(dcid: serverID, scid: clientID, payload: 40) + QUICBytes.handshake(dcid: serverID, scid: clientID, payload: 60)
            + QUICBytes.short(dcid: serverID, payload: 30), t0 + 3 * Self.ms)
        s2c(QUICBytes.short(dcid: clientID, payload: 200), t0 + 4 * Self.ms)
    }

    @Test func aConnectionsFiguresEachWay() throws {
        var analyzer = QUICFlowAnalyzer(markLimit: 10)
        handshake(&analyzer, at: Self.start, clientID: clientID)
        let flow = try #require(analyzer.evidence().first)
        #expect(analyzer.evidence().count == 1)
        #expect(flow.tuple == "127.0.0.1:40000 > 127.0.0.2:443" && flow.version == "0x00000001" && flow.versionName == "QUICv1")
        #expect(flow.originalDestinationConnectionId == "0d0d0d0d0d0d0d0d" && flow.clientConnectionId == "c1c1c1c1c1c1c1c1")
        #expect(flow.serverConnectionId == "5e5e5e5e")
        #expect(flow.initialRttMs == 1.5 && flow.handshakeMs == 3.0)
        let up = flow.clientToServer, down = flow.serverToClient
        #expect(up.datagrams == 2 && down.datagrams == 2)
        #expect(up.packets == 4 && up.initialPackets == 2 && up.handshakePackets == 1 && up.shortHeaderPackets == 1)
        #expect(down.packets == 3 && down.initialPackets == 1 && down.handshakePackets == 1 && down.shortHeaderPackets == 1)
        #expect(up.firstShortHeaderAt == Timestamp(microsecondsSince1970: (Self.start + 3 * Self.ms) / 1000))
        let upPayload = (QUICBytes.initial(dcid: original, scid: clientID, payload: 1150).count
            + QUICBytes.initial(dcid: serverID, scid: clientID, payload: 40).count + QUICBytes.handshake(dcid: serverID, scid: clientID, payload: 60).count
            + QUICBytes.short(dcid: serverID, payload: 30).count)
        #expect(up.payloadBytes == upPayload && up.bytes == upPayload + 2 * 28)
        #expect(flow.packets?.map(\.flags) == ["initial", "initial+handshake", "initial+handshake+1rtt", "1rtt"])
        #expect(flow.packets?.map(\.fromClient) == [true, false, true, false])
    }

    /// libcurl reuses the 4-tuple at once: the second connection's first Initial (a new source
    /// ID) starts a new connection, and the first connection's late 1-RTT datagram still goes to
    /// it by its destination ID (tshark's quic.connection.number agrees).
    @Test func aReused4TupleIsToldApartByConnectionIDs() throws {
        var analyzer = QUICFlowAnalyzer()
        handshake(&analyzer, at: Self.start, clientID: clientID)
        let second: [UInt8] = [0xC2, 0xC2, 0xC2, 0xC2, 0xC2, 0xC2, 0xC2, 0xC2]
        handshake(&analyzer, at: Self.start + 10 * Self.ms, clientID: second)
        // The first connection's server sends one more datagram after the second one began.
        var late = QUICBytes.frame(QUICBytes.short(dcid: clientID, payload: 20), from: 443, to: 40000)
        late.replaceSubrange(12..<20, with: [127, 0, 0, 2, 127, 0, 0, 1])
        QUICBytes.datagram(late, at: Self.start + 12 * Self.ms) { datagram in
            let added = analyzer.add(datagram)
            #expect(added)
        }
        let flows = analyzer.evidence()
        try #require(flows.count == 2)
        #expect(flows.map(\.clientConnectionId) == ["c1c1c1c1c1c1c1c1", "c2c2c2c2c2c2c2c2"])
        #expect(flows[0].serverToClient.datagrams == 3 && flows[1].serverToClient.datagrams == 2)
        #expect(flows[1].initialRttMs == 1.5)
    }

    @Test func udpThatIsNotQUICIsNotAConnection() {
        var analyzer = QUICFlowAnalyzer()
        // A DNS query: no long header with a known version.
        let dns: [UInt8] = [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 3, 0x77, 0x77, 0x77, 0, 0, 1, 0, 1]
        QUICBytes.datagram(QUICBytes.frame(dns, from: 5353, to: 53), at: 0) { datagram in
            let added = analyzer.add(datagram)
            #expect(!added)
        }
        var highBit = dns
        highBit[0] = 0x92  // the long-header bit, with "version" 0x3401_0000: unknown
        QUICBytes.datagram(QUICBytes.frame(highBit, from: 5353, to: 53), at: 0) { datagram in
            let added = analyzer.add(datagram)
            #expect(!added)
        }
        #expect(analyzer.evidence().isEmpty)
    }
}

@Suite struct QUICCaptureCheckTests {
    static func flow(initialRttMs: Double?, handshakeMs: Double?, initialAt: Int64) -> QUICFlowEvidence {
        QUICFlowEvidence(tuple: "127.0.0.1:10000 > 127.0.0.1:443", clientAddress: "127.0.0.1", clientPort: 10000,
                         serverAddress: "127.0.0.1", serverPort: 443, firstPacketAt: Timestamp(microsecondsSince1970: initialAt),
                         lastPacketAt: Timestamp(microsecondsSince1970: initialAt + 20_000),
                         firstClientInitialAt: Timestamp(microsecondsSince1970: initialAt), initialRttMs: initialRttMs, handshakeMs: handshakeMs)
    }

    static func transaction(connect: Double?, tls: Double?, reused: Bool = false, version: String? = "TLSv1.3", fetchAt: Int64 = 1_000_000) -> TransactionMetrics {
        TransactionMetrics(request: RequestRecord(method: "GET", url: "https://127.0.0.1:443/", headers: []),
                           fetchStartDate: Timestamp(microsecondsSince1970: fetchAt), networkProtocolName: "h3", isReusedConnection: reused,
                           remoteAddress: "127.0.0.1", remotePort: 443, localAddress: "127.0.0.1", localPort: 10000,
                           negotiatedTLSProtocolVersion: version, phases: Phases(connect: connect, tls: tls))
    }

    @Test func connectAndTLSChecksFollowLibcurlsQUICMilestones() {
        let flow = Self.flow(initialRttMs: 1.4, handshakeMs: 9.5, initialAt: 1_000_100)
        // libcurl's connect ends when it has read the server's first packet, later than the wire's:
        // its TLS phase alone (5 ms) is shorter than the wire's server-first → 1-RTT (8.1 ms),
        // and the whole handshake (9.5 ms) still fits in connect + TLS (11.1 ms).
        let agreeing = QUICCaptureCheck.evidence(flow, Self.transaction(connect: 6.1, tls: 5.0))
        #expect(agreeing.transport == "quic" && agreeing.clientInitialSeen == true && !agreeing.synSeen)
        #expect(agreeing.connectAgrees == true && agreeing.tlsAgrees == true && agreeing.reuseAgrees == true)
        #expect(agreeing.initialRttMs == 1.4 && agreeing.tlsHandshakeMs == 9.5)
        // A connect phase shorter than the wire's round trip (beyond 1 ms of slack) disagrees.
        #expect(QUICCaptureCheck.evidence(Self.flow(initialRttMs: 3.5, handshakeMs: 9.5, initialAt: 1_000_100),
                                          Self.transaction(connect: 2.0, tls: 9.0)).connectAgrees == false)
        #expect(QUICCaptureCheck.evidence(flow, Self.transaction(connect: 2.0, tls: 5.0)).tlsAgrees == false, "9.5 > 7 + 1")
        #expect(QUICCaptureCheck.evidence(flow, Self.transaction(connect: 6.1, tls: 5.0, version: "TLSv1.2")).tlsAgrees == false)
        // A reused connection has no phases to compare; its Initial came before the transaction.
        let reused = QUICCaptureCheck.evidence(flow, Self.transaction(connect: nil, tls: nil, reused: true, fetchAt: 1_050_000))
        #expect(reused.connectAgrees == nil && reused.tlsAgrees == nil && reused.reuseAgrees == true)
        // A "reused" connection whose first Initial came 3 ms after the transaction began: opened by it.
        #expect(QUICCaptureCheck.evidence(Self.flow(initialRttMs: 1.4, handshakeMs: 9.5, initialAt: 1_003_000),
                                          Self.transaction(connect: 6.1, tls: 5.0, reused: true)).reuseAgrees == false)
    }

    static func task(_ transactions: [TransactionMetrics]) -> ProbeTask {
        ProbeTask(url: "https://127.0.0.1:443/", iteration: 0, taskInterval: TaskInterval(start: Timestamp(microsecondsSince1970: 1_000_000), durationMs: 30),
                  redirectCount: 0, error: nil, transactionMetrics: transactions)
    }

    @Test func theMatcherGivesAnH3TransactionItsQUICConnection() throws {
        let quic = Self.flow(initialRttMs: 1.4, handshakeMs: 9.5, initialAt: 1_000_100)
        let capture = CaptureReport(file: "capture.pcap", linkType: "NULL", packets: 10, otherPackets: 0, complete: true, problems: [],
                                    flows: [], quicFlows: [quic])
        let task = Self.task([Self.transaction(connect: 6.1, tls: 5.0)])
        let matched = try #require(CaptureMatcher(captures: [capture]).attach(to: task))
        #expect(matched.transactionMetrics.first?.capture?.transport == "quic")
        #expect(matched.transactionMetrics.first?.capture?.flow == quic.tuple)
        // An HTTP/2 transaction on the same 4-tuple is not matched to the QUIC connection.
        var tcp = Self.transaction(connect: 6.1, tls: 5.0)
        tcp.networkProtocolName = "h2"
        #expect(CaptureMatcher(captures: [capture]).attach(to: Self.task([tcp])) == nil)
    }
}

/// The corpus's loopback capture of `sonde probe --http3-only --capture --count 3 --no-reuse`
/// against hypercorn (three QUIC connections on one 4-tuple), against the figures tshark 4.0.17's
/// QUIC dissector gives for it: `tshark -r quic-h3-loopback.pcap -Y quic -T fields -e
/// frame.time_epoch -e udp.srcport -e udp.length -e ip.len -e quic.connection.number -e
/// quic.header_form -e quic.long.packet_type -e quic.dcid -e quic.scid`, summed per connection.
@Suite struct QUICCorpusTests {
    @Test func theCorpusCaptureAgreesWithTshark() throws {
        let report = try CaptureFileAnalyzer.analyze(path: HostileCaptureTests.path("quic-h3-loopback.pcap"))
        #expect(report.packets == 57 && report.otherPackets == 0 && report.flows.isEmpty && report.complete)
        let flows = report.quicFlows
        try #require(flows.count == 3)
        func figures(_ d: QUICFlowEvidence.Direction) -> [Int] {
            [d.datagrams, d.bytes, d.payloadBytes, d.packets, d.initialPackets, d.handshakePackets, d.shortHeaderPackets]
        }
        // datagrams, IP bytes, UDP payload bytes, QUIC packets, Initial, Handshake, short header
        #expect(flows.map { figures($0.clientToServer) } == [[9, 8069, 7817, 11, 4, 1, 6], [10, 6981, 6701, 12, 3, 1, 8], [11, 8209, 7901, 13, 4, 1, 8]])
        #expect(flows.map { figures($0.serverToClient) } == [[8, 4017, 3793, 10, 2, 1, 7], [9, 4088, 3836, 11, 2, 1, 8], [10, 4154, 3874, 12, 2, 1, 9]])
        #expect(flows.map(\.originalDestinationConnectionId) == ["6381ebb3964dedecc95942cef643df1268db56c2", "f7439cb509fc7cdee3e9e987bab123cfe432decb",
                                                                "1dd0b0ad94ec95e4df70ef89c73b6abc1515d0ad"])
        #expect(flows.map(\.clientConnectionId) == ["174de38f6636618737066036a08ed8bb15be80b3", "54df738d253fdd1eed57cb83999fe622eb358602",
                                                    "f09d4caafc393745a6ca16a3edf606a8c18debd1"])
        #expect(flows.map(\.serverConnectionId) == ["e60050a35f3302fc", "b63728eced35152f", "a491a7163118c95c"])
        // First client Initial → first server datagram, from tshark's frame.time_epoch (ns in the file).
        #expect(flows.map(\.initialRttMs) == [4.121408, 3.230819, 6.107592])
        #expect(flows.allSatisfy { $0.tuple == "127.0.0.1:13880 > 127.0.0.1:18444" && $0.versionName == "QUICv1" && $0.problems.isEmpty })
        #expect(flows.allSatisfy { ($0.handshakeMs ?? 0) > ($0.initialRttMs ?? .infinity) })
    }
}
