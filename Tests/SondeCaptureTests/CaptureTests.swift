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
        let seeds = try ["valid-one-syn.pcap", "lying-headers.pcap", "truncated-record.pcap"].map {
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
        for round in 0..<50_000 {
            var frame = (0..<Int.random(in: 0...120, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Steer a share of frames into the IP and TCP parsers.
            if round % 2 == 0, frame.count > 40 { frame[0] = 0x45; frame[9] = 6 }
            if round % 3 == 0, frame.count > 40 { frame[0] = 0x60; frame[6] = 6 }
            frame.withUnsafeBytes { raw in
                if PacketDecoder.decode(raw, link: links[round % links.count], timestampNanos: 0) != nil { decoded += 1 }
            }
        }
        #expect(decoded >= 0)
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
