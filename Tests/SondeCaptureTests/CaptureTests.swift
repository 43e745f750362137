import Foundation
import Testing
@testable import SondeCapture
import SondeCore

@Suite struct HostileCaptureTests {
    static let corpus = Bundle.module.resourceURL!.appendingPathComponent("Corpus").path

    static func path(_ name: String) -> String { corpus + "/" + name }

    @Test(arguments: [
        ("bad-magic.pcap", "unknown file format"),
        ("random-bytes.pcap", "unknown file format"),
        ("empty.pcap", "truncated dump file"),
        ("unknown-linktype.pcap", "does not decode"),
    ])
    func unreadableFilesAreClearErrors(name: String, message: String) {
        do {
            _ = try CaptureFileAnalyzer.analyze(path: Self.path(name))
            Issue.record("\(name) should not be analysable")
        } catch {
            #expect(error.message.contains(message), "\(name): \(error.message)")
            #expect(error.message.contains(name), "the message names the file")
        }
    }

    @Test func damagedFilesGiveAFlaggedPartialAnalysis() throws {
        let truncated = try CaptureFileAnalyzer.analyze(path: Self.path("truncated-record.pcap"))
        #expect(!truncated.complete && truncated.packets == 1 && truncated.flows.count == 1)
        #expect(truncated.problems.first?.contains("truncated") == true)
        let absurd = try CaptureFileAnalyzer.analyze(path: Self.path("absurd-length.pcap"))
        #expect(!absurd.complete && absurd.packets == 0)
        #expect(absurd.problems.first?.contains("bigger than snaplen") == true, "\(absurd.problems)")
        // libpcap clamps a record longer than the snap length (64 here) to it: still decodable.
        let oversized = try CaptureFileAnalyzer.analyze(path: Self.path("caplen-over-snaplen.pcap"))
        #expect(oversized.complete && oversized.packets == 1 && oversized.flows.count == 1)
        let empty = try CaptureFileAnalyzer.analyze(path: Self.path("header-only.pcap"))
        #expect(empty.complete && empty.packets == 0 && empty.flows.isEmpty)
    }

    @Test func lyingHeadersAreNeverReadPastTheFrame() throws {
        let report = try CaptureFileAnalyzer.analyze(path: Self.path("lying-headers.pcap"))
        #expect(report.packets == 5 && report.complete)
        // Only the frame whose lie is harmless (IP total length larger than the frame) decodes.
        #expect(report.otherPackets == 4, "\(report.otherPackets)")
    }

    /// Bounded random mutation of real files: every result is an error value or a report, never a
    /// crash; run in the sanitizer-free debug build in a few seconds.
    @Test func mutatedFilesNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        let seeds = try ["valid-one-syn.pcap", "lying-headers.pcap", "truncated-record.pcap", "tls-curl-loopback.pcap", "quic-h3-loopback.pcap"].map {
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.path($0))))
        }
        let file = NSTemporaryDirectory() + "sonde-fuzz-\(UUID().uuidString).pcap"
        defer { unlink(file) }
        var analysed = 0, rejected = 0
        for round in 0..<600 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1 where bytes.count > 1: bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
                default: bytes += (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            do {
                let report = try CaptureFileAnalyzer.analyze(path: file)
                #expect(report.packets >= report.otherPackets)
                analysed += 1
            } catch {
                #expect(!error.message.isEmpty)
                rejected += 1
            }
        }
        #expect(analysed + rejected == 600)
    }

    @Test func randomFramesNeverCrashTheDecoder() {
        var generator = SystemRandomNumberGenerator()
        let links: [PacketDecoder.LinkType] = [.ethernet, .linuxSLL, .linuxSLL2, .raw, .null]
        var decoded = 0
        var quic = QUICFlowAnalyzer(markLimit: 4)
        for round in 0..<50_000 {
            var frame = (0..<Int.random(in: 0...120, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Steer a share of frames into the IP and TCP parsers.
            if round % 2 == 0, frame.count > 40 { frame[0] = 0x45; frame[9] = 6 }
            if round % 3 == 0, frame.count > 40 { frame[0] = 0x60; frame[6] = 6 }
            if round % 5 == 0, frame.count > 40 { frame[0] = 0x45; frame[9] = 17 }
            if round % 7 == 0, frame.count > 48 { frame[0] = 0x60; frame[6] = 17; frame[40] |= 0x80; frame[49 % frame.count] = 1 }
            frame.withUnsafeBytes { raw in
                if PacketDecoder.decode(raw, link: links[round % links.count], timestampNanos: 0) != nil { decoded += 1 }
                if case .udp(let datagram)? = PacketDecoder.decodePacket(raw, link: links[round % links.count], timestampNanos: 0) {
                    _ = quic.add(datagram)
                }
            }
        }
        #expect(decoded >= 0)
        #expect(quic.evidence().count >= 0)
    }
}

@Suite struct DecoderTests {
    @Test func ipv6TextFollowsRFC5952() {
        #expect(compressIPv6(["fd00", "0", "0", "0", "0", "0", "0", "1"]) == "fd00::1")
        #expect(compressIPv6(["0", "0", "0", "0", "0", "0", "0", "1"]) == "::1")
        #expect(compressIPv6(["2001", "db8", "0", "1", "0", "0", "0", "1"]) == "2001:db8:0:1::1")
        #expect(compressIPv6(["2001", "db8", "1", "2", "3", "4", "5", "0"]) == "2001:db8:1:2:3:4:5:0")
    }

    @Test func decodesTheSYNOfTheCorpus() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: HostileCaptureTests.path("valid-one-syn.pcap"))))
        let frame = Array(bytes[40...])  // after the 24-byte file header and the 16-byte record header
        let segment = try #require(frame.withUnsafeBytes { PacketDecoder.decode($0, link: .ethernet, timestampNanos: 5) })
        #expect(segment.source.text == "10.0.0.1:40000" && segment.destination.text == "10.0.0.2:80")
        #expect(segment.isSYN && !segment.hasACK && segment.sequence == 1000 && segment.payloadLength == 0)
    }
}

/// The TLS record layer: the corpus's curl capture against the target (TLS 1.3 + h2, TLS 1.2 +
/// http/1.1, TLS 1.2 + h2) and a byte stream cut into every kind of segment.
@Suite struct TLSRecordLayerTests {
    @Test func theCorpusCaptureShowsEachHandshake() throws {
        let report = try CaptureFileAnalyzer.analyze(path: HostileCaptureTests.path("tls-curl-loopback.pcap"))
        let tls = report.flows.compactMap(\.tls)
        try #require(tls.count == 3)
        #expect(tls.map(\.version) == ["TLSv1.3", "TLSv1.2", "TLSv1.2"])
        #expect(tls.map(\.cipherSuiteCode) == ["0x1302", "0xc02c", "0xc02c"])
        #expect(tls[0].cipherSuite == "TLS_AES_256_GCM_SHA384")
        #expect(tls.map(\.alpn) == [nil, "http/1.1", "h2"], "ALPN is encrypted in TLS 1.3")
        #expect(tls.allSatisfy { $0.serverName == "localhost" && $0.problem == nil && $0.serverHelloAt != nil })
        #expect(tls[0].offeredVersions.first == "TLSv1.3" && tls[0].offeredAlpn == ["h2", "http/1.1"])
        #expect(tls[0].serverFinishedAt == nil && tls[1].serverFinishedAt != nil, "the server's Finished is hidden in TLS 1.3")
        for t in tls {
            // Each milestone after the one before it, on each side.
            let order = [t.clientHelloAt, t.serverHelloAt, t.clientFinishedAt, t.clientFirstApplicationDataAt].compactMap { $0 }
            #expect(order.count == 4 && order == order.sorted(), "\(t)")
            #expect((t.handshakeMs ?? 0) > 0)
        }
    }

    @Test func packetMarksKeepTheFirstPacketsOfEachConnection() throws {
        let report = try CaptureFileAnalyzer.analyze(path: HostileCaptureTests.path("tls-curl-loopback.pcap"), markLimit: 5)
        let marks = try #require(report.flows.first?.packets)
        #expect(marks.count == 5)
        #expect(marks.prefix(3).map(\.flags) == ["S", "SA", "A"] && marks.prefix(3).map(\.fromClient) == [true, false, true])
        #expect(marks.first?.offsetUs == 0 && marks.map(\.offsetUs) == marks.map(\.offsetUs).sorted())
        #expect(marks[3].payload > 0, "the ClientHello")
        #expect(try CaptureFileAnalyzer.analyze(path: HostileCaptureTests.path("tls-curl-loopback.pcap")).flows.allSatisfy { $0.packets == nil },
                "none by default (sonde analyze)")
    }

    /// A ClientHello record and what follows, fed 1, 2, 3, … bytes at a time, with every second
    /// segment sent twice (a retransmission): the same records each time. A gap stops the scan.
    @Test func recordsSurviveAnySegmentation() throws {
        let hello = Self.clientHello(serverName: "example.test", alpn: ["h2", "http/1.1"])
        let stream = Self.record(22, hello) + Self.record(20, [1]) + Self.record(23, [UInt8](repeating: 7, count: 300))
        for size in [1, 2, 3, 5, 7, 64, stream.count] {
            var scanner = TLSRecordScanner()
            scanner.start(at: 1000)
            var records: [TLSRecordScanner.Record] = []
            var offset = 0, segment = 0
            while offset < stream.count {
                let end = min(stream.count, offset + size)
                let chunk = Array(stream[offset..<end])
                for _ in 0..<(segment % 2 == 0 ? 1 : 2) {
                    chunk.withUnsafeBytes { raw in
                        scanner.consume(sequence: 1000 + UInt32(offset), length: chunk.count, captured: raw,
                                        timestampNanos: Int64(segment)) { records.append($0) }
                    }
                }
                offset = end
                segment += 1
            }
            #expect(records.map(\.contentType) == [22, 20, 23], "segments of \(size)")
            #expect(scanner.problem == nil)
            let parsed = try #require(records.first?.body.flatMap(TLSHelloParser.clientHello))
            #expect(parsed.serverName == "example.test" && parsed.alpn == ["h2", "http/1.1"] && parsed.versions == ["TLSv1.3"])
            #expect(records[0].timestampNanos == 0, "a record's time is that of its first byte")
        }
        var gapped = TLSRecordScanner()
        gapped.start(at: 1)
        stream.withUnsafeBytes { raw in
            gapped.consume(sequence: 10, length: 20, captured: UnsafeRawBufferPointer(rebasing: raw[0..<20]), timestampNanos: 0) { _ in }
        }
        #expect(gapped.stopped && gapped.problem?.contains("gap") == true)
    }

    @Test func hostileRecordsStopTheScanWithAReason() {
        for (bytes, reason) in [([UInt8]([99, 3, 3, 0, 1, 0]), "not a TLS record"), ([22, 3, 3, 0xFF, 0xFF], "over TLS's limit")] {
            var scanner = TLSRecordScanner()
            bytes.withUnsafeBytes { raw in
                scanner.consume(sequence: 0, length: raw.count, captured: raw, timestampNanos: 0) { _ in }
            }
            #expect(scanner.problem?.contains(reason) == true, "\(scanner.problem ?? "no problem")")
        }
        // A snap length that cut a header (40 bytes on the wire, 6 captured) is a problem; one that
        // cut a skipped body is not.
        var cut = TLSRecordScanner()
        [UInt8]([23, 3, 3, 0, 1, 9]).withUnsafeBytes { raw in
            cut.consume(sequence: 0, length: 40, captured: raw, timestampNanos: 0) { _ in }
        }
        #expect(cut.problem?.contains("snap length") == true)
        var skipped = TLSRecordScanner()
        [UInt8]([23, 3, 3, 0, 40, 9]).withUnsafeBytes { raw in
            skipped.consume(sequence: 0, length: 45, captured: raw, timestampNanos: 0) { _ in }
        }
        #expect(skipped.problem == nil)
        // Random hellos never trap the parser.
        var generator = SystemRandomNumberGenerator()
        let real = Self.clientHello(serverName: "a.test", alpn: ["h2"])
        for _ in 0..<5_000 {
            var body = real
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                body[Int.random(in: 0..<body.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            body.removeLast(Int.random(in: 0..<body.count, using: &generator))
            _ = TLSHelloParser.clientHello(body)
            body[0] = 2
            _ = TLSHelloParser.serverHello(body)
        }
    }

    static func record(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [type, 3, 3, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// A minimal ClientHello: SNI, ALPN and supported_versions (with a GREASE value to leave out).
    static func clientHello(serverName: String, alpn: [String]) -> [UInt8] {
        func u16(_ n: Int) -> [UInt8] { [UInt8(n >> 8), UInt8(n & 0xFF)] }
        func ext(_ type: Int, _ data: [UInt8]) -> [UInt8] { u16(type) + u16(data.count) + data }
        let name = Array(serverName.utf8)
        let sni = ext(0, u16(name.count + 3) + [0] + u16(name.count) + name)
        let names = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        let alpnExtension = ext(16, u16(names.count) + names)
        let versions = ext(43, [4, 0x3A, 0x3A, 3, 4])
        let extensions = sni + alpnExtension + versions
        let body: [UInt8] = [3, 3] + [UInt8](repeating: 1, count: 32) + [0] + u16(2) + [0x13, 0x01] + [1, 0] + u16(extensions.count) + extensions
        return [1, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }
}

/// The endpoints a capture filter must name, moved out of the CLI so they are tested here.
@Suite struct CaptureEndpointsTests {
    @Test func resolveEntriesWinAndDefaultPortsFollowTheScheme() {
        let endpoints = CaptureEndpoints.resolve(urls: ["https://api.example:8443/x", "wss://api.example/socket", "http://127.0.0.1/"],
                                                 resolve: ["api.example:8443:10.9.8.7", "api.example:443:[::1]"])
        #expect(endpoints.map { "\($0.address) \($0.port)" } == ["10.9.8.7 8443", "::1 443", "127.0.0.1 80"])
        #expect(CaptureEndpoints.resolve(urls: ["not a url", "http:///nohost"], resolve: []).isEmpty)
    }
}
