import Foundation
import Testing
@testable import SondeTarget

@Suite struct ByteRangeTests {
    @Test func answersSingleRanges() {
        #expect(ByteRange.answer(rangeHeader: nil, length: 100) == .full)
        #expect(ByteRange.answer(rangeHeader: "bytes=0-9", length: 100) == .partial(0...9))
        #expect(ByteRange.answer(rangeHeader: "bytes=90-", length: 100) == .partial(90...99))
        #expect(ByteRange.answer(rangeHeader: "bytes=-10", length: 100) == .partial(90...99))
        #expect(ByteRange.answer(rangeHeader: "bytes=50-500", length: 100) == .partial(50...99))
        #expect(ByteRange.answer(rangeHeader: "bytes=100-", length: 100) == .unsatisfiable)
        #expect(ByteRange.answer(rangeHeader: "bytes=0-1,5-6", length: 100) == .full)
        #expect(ByteRange.answer(rangeHeader: "items=0-1", length: 100) == .full)
        #expect(ByteRange.answer(rangeHeader: "bytes=9-1", length: 100) == .full)
    }

    @Test func bodyIsDeterministic() {
        #expect(DeterministicBody.bytes(0..<3) == Array("abc".utf8))
        #expect(DeterministicBody.byte(at: 26) == UInt8(ascii: "a"))
    }
}

/// The target checked by an independent client: the curl command-line tool.
@Suite(.serialized) struct TargetServerCurlTests {
    static let server = TargetServer(directory: NSTemporaryDirectory() + "sonde-target-tests-\(getpid())")
    static let started = Task { try await server.start() }

    /// Runs the curl tool on a thread of its own: blocking one of Swift's cooperative threads
    /// (two on this machine) could starve the in-process target that curl is talking to.
    private func curl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    process.arguments = ["-s", "--max-time", "10"] + arguments
                    let pipe = Pipe()
                    process.standardOutput = pipe
                    try process.run()
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }

    @Test func servesRangesAndHonoursIfRange() async throws {
        let target = try await Self.started.value
        let url = target.http + "/bytes/100"
        let full = try await curl(["-D", "-", url])
        #expect(full.output.contains("200"))
        #expect(full.output.lowercased().contains("etag: \"bytes-100\""))
        #expect(full.output.lowercased().contains("accept-ranges: bytes"))
        let partial = try await curl(["-D", "-", "-r", "10-19", url])
        #expect(partial.output.contains("206"))
        #expect(partial.output.lowercased().contains("content-range: bytes 10-19/100"))
        #expect(partial.output.hasSuffix("klmnopqrst"))
        let stale = try await curl(["-D", "-", "-r", "10-19", "-H", "If-Range: \"old\"", url])
        #expect(stale.output.hasPrefix("HTTP/1.1 200"))
        let current = try await curl(["-D", "-", "-r", "10-19", "-H", "If-Range: \"bytes-100\"", url])
        #expect(current.output.hasPrefix("HTTP/1.1 206"))
        let beyond = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-r", "200-", url])
        #expect(beyond.output == "416")
    }

    @Test func speaksH2OverTLSAndH2C() async throws {
        let target = try await Self.started.value
        let tls = try await curl(["-o", "/dev/null", "-w", "%{http_version}", "--cacert", target.caFile, target.https + "/bytes/1"])
        #expect(tls.output == "2")
        let h2c = try await curl(["-o", "/dev/null", "-w", "%{http_version}", "--http2-prior-knowledge", target.h2c + "/bytes/1"])
        #expect(h2c.output == "2")
        let expired = try await curl(["-o", "/dev/null", "--cacert", target.caFile, target.httpsExpired + "/bytes/1"])
        #expect(expired.status == 60)
    }

    @Test func endpointsBehave() async throws {
        let target = try await Self.started.value
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", target.http + "/status/418"]).output == "418")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code} %{num_redirects}", "-L", target.http + "/redirect/2"]).output == "200 2")
        let drip = try await curl(["-o", "/dev/null", "-w", "%{size_download} %{time_total}", target.http + "/drip?bytes=100&ms=300"])
        let parts = drip.output.split(separator: " ")
        #expect(parts.first == "100")
        #expect((Double(parts.last ?? "0") ?? 0) >= 0.25)
        #expect(try await curl([target.http + "/headers", "-H", "X-Probe: 1"]).output.contains("X-Probe"))
        #expect(try await curl(["-o", "/dev/null", target.http + "/truncate/1000"]).status == 18)
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", target.http + "/bytes/99999999999"]).output == "400")
        #expect(try await curl(["-o", "/dev/null", "--connect-timeout", "0.3", target.blackhole + "/"]).status == 28)
    }
}

@Suite struct WebSocketFaultsTests {
    @Test func readsTheFaultsAClientAsksFor() {
        let faults = WebSocketFaults(requestTarget: "/ws/echo?closeAfter=1.5&code=4001&reason=bye%20now&noPong=1&pongDelay=20&refuse=2&status=429&key=k")
        #expect(faults.closeAfter == 1.5 && faults.closeCode == 4001 && faults.closeReason == "bye now")
        #expect(faults.noPong && faults.pongDelayMs == 20 && faults.refuseCount == 2 && faults.refuseStatus == 429 && faults.refuseKey == "k")
    }

    @Test(arguments: ["/ws/echo?=", "/ws/echo?==&=x&&", "/ws/echo?code=&status=101&pongDelay=x&closeAfter=-1&idleTimeout=nan",
                      "/ws/echo?restartEvery=0.01&pingEvery=1e300", "/ws/echo?%ZZ=%ZZ"])
    func oddQueriesGiveTheDefaultsAndNeverCrash(target: String) {
        let faults = WebSocketFaults(requestTarget: target)
        #expect(faults.closeAfter == nil && faults.closeCode == 1001 && faults.refuseStatus == 503 && faults.pongDelayMs == 0)
        #expect(faults.restartEvery == nil && faults.pingEvery == nil && faults.idleTimeout == nil)
    }
}
