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
            Thread { continuation.resume(with: Result { try Self.curlBlocking(arguments) }) }.start()
        }
    }

    /// The curl tool, run to its end on the calling thread (never call it on Swift's threads).
    private static func curlBlocking(_ arguments: [String], maxTime: Int = 30) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", String(maxTime)] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A test process's synchronous tests can hold every one of Swift's cooperative threads for
    /// minutes (each CLI test waits for a sonde process). The target must answer meanwhile: its
    /// handlers run on `TargetExecutor`'s threads. Without that, this curl times out.
    @Test func answersWhileEverySwiftThreadIsHeld() async throws {
        let target = try await Self.started.value
        let url = target.http + "/bytes/100"
        let width = ProcessInfo.processInfo.activeProcessorCount
        let outcome = await withCheckedContinuation { continuation in
            Thread {
                let hold = CooperativePoolHold()
                let allHeld = hold.hold(threads: width, within: 120)
                let probe = hold.probe()
                let answer = Result { try Self.curlBlocking(["-D", "-", "-r", "10-19", url], maxTime: 10) }
                let poolWasFull = !probe.hasRun
                hold.release()
                continuation.resume(returning: (allHeld, poolWasFull, answer))
            }.start()
        }
        #expect(outcome.0, "could not hold \(width) cooperative threads within 120 s")
        #expect(outcome.1, "a task ran while \(width) threads were held: the pool is wider than the cores, so this test proves nothing")
        let answer = try outcome.2.get()
        #expect(answer.status == 0)
        #expect(answer.output.hasPrefix("HTTP/1.1 206"))
        #expect(answer.output.hasSuffix("klmnopqrst"))
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

    @Test func bytesCarryTheirDigestAndChangingVersionsDiffer() async throws {
        let target = try await Self.started.value
        let headers = try await curl(["-D", "-", "-o", "/dev/null", target.http + "/bytes/3"])
        // sha-256 of "abc"
        #expect(headers.output.contains("Repr-Digest: sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"), "\(headers.output)")
        let first = try await curl([target.http + "/bytes/5?mode=changing"])
        let second = try await curl([target.http + "/bytes/5?mode=changing"])
        #expect(first.output.count == 5 && second.output.count == 5 && first.output != second.output, "\(first) \(second)")
        let cut = try await curl(["-o", "/dev/null", "-w", "%{size_download}", target.http + "/bytes/100000?dropAt=70000"])
        #expect(cut.output == "70000" && cut.status != 0, "the connection is cut before byte 70000: \(cut)")
        let bad = try await curl(["-o", "/dev/null", "-w", "%{http_code}", target.http + "/bytes/5?mode=bogus"])
        #expect(bad.output == "400")
    }

    @Test func responseHeadersAreSentBackButNeverTheFraming() async throws {
        let target = try await Self.started.value
        let sent = try await curl(["-D", "-", "-o", "/dev/null", target.http + "/response-headers?Set-Cookie=a%3Db&X-Two=2"])
        #expect(sent.output.contains("Set-Cookie: a=b\r\n") && sent.output.contains("X-Two: 2\r\n"), "\(sent.output)")
        // A CR LF in a value must not start a header of its own.
        let injected = try await curl(["-D", "-", "-o", "/dev/null", target.http + "/response-headers?X-A=1%0D%0AX-Injected:%20yes"])
        #expect(injected.output.hasPrefix("HTTP/1.1 200") && !injected.output.contains("\r\nX-Injected"), "\(injected.output)")
        for framing in ["Content-Length=5", "transfer-encoding=chunked", "Connection=close"] {
            let refused = try await curl(["-o", "/dev/null", "-w", "%{http_code}", target.http + "/response-headers?" + framing])
            #expect(refused.output == "400", "\(framing)")
        }
    }

    @Test func ietfResumableUploadsPerInteropVersion() async throws {
        let target = try await Self.started.value
        for version in [3, 5, 6, 8] {
            let incomplete = version <= 3 ? ["-H", "Upload-Incomplete: ?1"] : ["-H", "Upload-Complete: ?0"]
            let complete = version <= 3 ? ["-H", "Upload-Incomplete: ?0"] : ["-H", "Upload-Complete: ?1"]
            let created = try await curl(["-i", "-X", "POST", "-H", "Upload-Draft-Interop-Version: \(version)", "--data-binary", "hello "]
                                         + incomplete + [target.uploads + "/ietf"])
            let text = created.output.replacingOccurrences(of: "\r", with: "")
            #expect(text.hasPrefix("HTTP/1.1 104 Upload Resumption Supported"), "v\(version): \(text)")
            #expect(text.contains("HTTP/1.1 201") && text.contains("Upload-Offset: 6"), "v\(version): \(text)")
            #expect(text.contains(version >= 6 ? "Upload-Limit: max-size=" : "Location:"), "v\(version)")
            let location = try #require(text.split(separator: "\n").first { $0.hasPrefix("Location: ") }?.dropFirst("Location: ".count))
            let url = target.uploads + location
            let head = try await curl(["-I", "-H", "Upload-Draft-Interop-Version: \(version)", url])
            #expect(head.output.contains("204") && head.output.contains("Upload-Offset: 6") && head.output.contains("no-store"), "\(head.output)")
            let type = version >= 6 ? ["-H", "Content-Type: application/partial-upload"] : []
            let wrong = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Draft-Interop-Version: \(version)",
                                        "-H", "Upload-Offset: 3", "--data-binary", "world"] + type + complete + [url])
            #expect(wrong.output == "409", "an offset mismatch is a conflict (v\(version))")
            if version >= 6 {
                let untyped = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Draft-Interop-Version: \(version)",
                                              "-H", "Upload-Offset: 6", "-H", "Content-Type: text/plain", "--data-binary", "world"] + complete + [url])
                #expect(untyped.output == "415", "appends are application/partial-upload from version 6")
            }
            let appended = try await curl(["-i", "-X", "PATCH", "-H", "Upload-Draft-Interop-Version: \(version)", "-H", "Upload-Offset: 6",
                                           "--data-binary", "world"] + type + complete + [url])
            #expect(appended.output.contains("HTTP/1.1 200") && appended.output.contains("Upload-Offset: 11"), "\(appended.output)")
            let body = try await curl([url])
            #expect(body.output == "hello world")
            #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", "-H", "Upload-Draft-Interop-Version: \(version)", url]).output == "204")
            #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-I", "-H", "Upload-Draft-Interop-Version: \(version)", url]).output == "404")
        }
        let noVersion = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "--data-binary", "x", target.uploads + "/ietf"])
        #expect(noVersion.output == "400")
    }

    @Test func tusCoreAndCreation() async throws {
        let target = try await Self.started.value
        let options = try await curl(["-i", "-X", "OPTIONS", target.uploads + "/tus"])
        #expect(options.output.contains("Tus-Version: 1.0.0") && options.output.contains("Tus-Extension: creation"))
        let refused = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Upload-Length: 5", target.uploads + "/tus"])
        #expect(refused.output == "412", "Tus-Resumable is required")
        let created = try await curl(["-i", "-X", "POST", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Length: 11", target.uploads + "/tus"])
        #expect(created.output.contains("201"))
        let location = try #require(created.output.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
            .first { $0.hasPrefix("Location: ") }?.dropFirst("Location: ".count))
        let url = target.uploads + location
        let tus = ["-H", "Tus-Resumable: 1.0.0"]
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Offset: 0", "-H", "Content-Type: text/plain",
                                "--data-binary", "hello"] + tus + [url]).output == "415")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Offset: 0",
                                "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "hello "] + tus + [url]).output == "204")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Offset: 2",
                                "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "world"] + tus + [url]).output == "409")
        let head = try await curl(["-I"] + tus + [url])
        #expect(head.output.contains("Upload-Offset: 6") && head.output.contains("Upload-Length: 11"))
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Upload-Offset: 6",
                                "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "world"] + tus + [url]).output == "204")
        #expect(try await curl(tus + [url]).output == "hello world")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-I"] + tus + [target.uploads + "/tus/unknown"]).output == "404")
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

/// Holds Swift's cooperative threads with tasks that block until `release`, as synchronous tests
/// do. Threading: call from a thread of your own, never from a task.
final class CooperativePoolHold: @unchecked Sendable {
    private let running = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private var count = 0

    /// Starts `threads` blocking tasks and waits up to `seconds` until every one runs.
    func hold(threads: Int, within seconds: Double) -> Bool {
        count = threads
        let deadline = DispatchTime.now() + seconds
        for _ in 0..<threads {
            Task.detached { [running, gate] in Self.block(running: running, gate: gate) }
        }
        return (0..<threads).allSatisfy { _ in running.wait(timeout: deadline) == .success }
    }

    /// A task that notes when it runs: it cannot while every thread is held.
    func probe() -> Flag {
        let flag = Flag()
        Task.detached { flag.set() }
        return flag
    }

    func release() {
        for _ in 0..<count { gate.signal() }
    }

    private static func block(running: DispatchSemaphore, gate: DispatchSemaphore) {
        running.signal()
        gate.wait()
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var hasRun: Bool { lock.withLock { value } }
    }
}
