import Foundation
import SondeCore
import SondeTarget
import Testing
@testable import SondeHTTP

/// One embedded target for the whole test process (started on first use).
enum SharedTarget {
    static let server = TargetServer(directory: NSTemporaryDirectory() + "sonde-http-tests-\(getpid())")
    static let started = Task { try await server.start() }
    static func endpoints() async throws -> TargetEndpoints { try await started.value }
}

/// Runs the engine on its own thread (it blocks), so the in-process target keeps Swift's threads.
func probe(_ urls: [String], _ configure: (inout ProbeOptions) -> Void = { _ in }) async throws -> [ProbeTask] {
    var options = ProbeOptions()
    configure(&options)
    let runner = try ProbeRunner(options: options, redactor: Redactor())
    return await runOnDedicatedThread(named: "sonde-test") {
        var tasks: [ProbeTask] = []
        _ = try? runner.run(urls: urls, shouldStop: { false }, onTask: { tasks.append($0) })
        return tasks
    }
}

@Suite(.serialized) struct ProbeRunnerTargetTests {
    @Test func http11KeepAliveReusesTheConnection() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.http)/bytes/1024"]) { $0.count = 3; $0.httpVersion = .http1_1 }
        #expect(tasks.count == 3)
        let t = tasks.map { $0.transactionMetrics[0] }
        #expect(t.allSatisfy { $0.networkProtocolName == "http/1.1" && $0.response?.statusCode == 200 })
        #expect(t[0].isReusedConnection == false)
        #expect(t[1].isReusedConnection && t[2].isReusedConnection)
        #expect(t[0].localPort != nil && t[1].localPort == t[0].localPort && t[2].localPort == t[0].localPort)
        #expect(t[1].connectionID == t[0].connectionID)
        #expect(t[0].phases.connect != nil && t[1].phases.connect == nil && t[1].phases.dns == nil)
        #expect(t[1].domainLookupStartDate == nil && t[1].connectStartDate == nil)
        #expect(t.allSatisfy { $0.countOfResponseBodyBytesReceived == 1024 && $0.countOfResponseHeaderBytesReceived > 0 })
        #expect(t.allSatisfy { $0.countOfRequestHeaderBytesSent > 0 })
        #expect(t[0].response?.headers.contains { $0.name == "ETag" && $0.value == "\"bytes-1024\"" } == true)
        #expect(tasks.map(\.iteration) == [0, 1, 2])
    }

    @Test func noReuseOpensAFreshConnectionEveryTime() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.http)/bytes/10"]) { $0.count = 3; $0.reuseConnections = false }
        let t = tasks.map { $0.transactionMetrics[0] }
        #expect(t.allSatisfy { !$0.isReusedConnection && $0.phases.connect != nil })
        #expect(Set(t.compactMap(\.connectionID)).count == 3)
    }

    @Test func http2OverTLSRecordsTLSFacts() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.https)/bytes/2048"]) { $0.count = 2; $0.caCertPath = target.caFile }
        let t = tasks.map { $0.transactionMetrics[0] }
        #expect(tasks.allSatisfy { $0.error == nil })
        #expect(t.allSatisfy { $0.networkProtocolName == "h2" })
        #expect(t[0].negotiatedTLSProtocolVersion == "TLSv1.3")
        #expect(t[0].negotiatedTLSCipherSuite?.isEmpty == false)
        #expect(t[0].phases.tls.map { $0 > 0 } == true)
        #expect(t[0].secureConnectionStartDate != nil && t[0].secureConnectionEndDate != nil)
        #expect(t[0].peerCertificates.count >= 1)
        #expect(t[0].peerCertificates.first?.issuer.contains("sonde target CA") == true)
        #expect(t[1].isReusedConnection && t[1].phases.tls == nil)
        #expect(t[1].negotiatedTLSProtocolVersion == "TLSv1.3")
    }

    @Test func h2cWithPriorKnowledge() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.h2c)/bytes/100"]) { $0.count = 2; $0.httpVersion = .http2PriorKnowledge }
        #expect(tasks.allSatisfy { $0.error == nil && $0.transactionMetrics[0].networkProtocolName == "h2c" })
    }

    @Test func redirectsAreHopsOnTheSameHandle() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.http)/redirect/3"])
        let task = try #require(tasks.first)
        #expect(task.error == nil)
        #expect(task.redirectCount == 3)
        #expect(task.transactionMetrics.count == 4)
        #expect(task.transactionMetrics.map { $0.response?.statusCode } == [302, 302, 302, 200])
        #expect(task.transactionMetrics.dropFirst().allSatisfy { $0.isReusedConnection })
        #expect(task.transactionMetrics.last?.request.url.hasSuffix("/redirect/0") == true)
    }

    @Test func tooManyRedirectsIsAnError() async throws {
        let target = try await SharedTarget.endpoints()
        let task = try #require(try await probe(["\(target.http)/redirect/5"]) { $0.maxRedirects = 2 }.first)
        #expect(task.error?.code == .tooManyRedirects)
        #expect(task.transactionMetrics.count == 3)
    }

    @Test func postBodyIsCountedAndTimed() async throws {
        let target = try await SharedTarget.endpoints()
        let body = Array(repeating: UInt8(ascii: "x"), count: 100_000)
        let task = try #require(try await probe(["\(target.http)/echo"]) { $0.body = body; $0.method = "POST" }.first)
        let t = try #require(task.transactionMetrics.first)
        #expect(task.error == nil)
        #expect(t.countOfRequestBodyBytesSent == 100_000)
        #expect(t.countOfResponseBodyBytesReceived == 100_000)
        #expect(t.requestEndDate! >= t.requestStartDate!)
    }

    @Test func parallelHTTP2Multiplexes() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.https)/delay/50"]) { $0.count = 8; $0.parallel = 4; $0.caCertPath = target.caFile }
        #expect(tasks.count == 8)
        #expect(tasks.allSatisfy { $0.error == nil && $0.transactionMetrics[0].networkProtocolName == "h2" })
        let t = tasks.map { $0.transactionMetrics[0] }
        let connections = Set(t.compactMap(\.connectionID))
        // The first hop opens the one connection; the others wait for it in sonde's queue (not in
        // libcurl's), then multiplex on it: the same id even for streams that finish before it.
        #expect(connections.count == 1, "HTTP/2 streams should share one connection, got \(connections.count)")
        #expect(t.filter { !$0.isReusedConnection }.count == 1)
        let opener = try #require(t.first { !$0.isReusedConnection })
        let setUp = (opener.phases.dns ?? 0) + (opener.phases.connect ?? 0) + (opener.phases.tls ?? 0)
        let queued = tasks.filter { $0.iteration < 4 && $0.transactionMetrics[0].isReusedConnection }.map { $0.transactionMetrics[0] }
        #expect(queued.count == 3, "the other three first hops waited for the connection")
        #expect(queued.allSatisfy { $0.queue! >= setUp / 2 && $0.queue! < 5_000 }, "queues \(queued.map(\.queue)), set-up \(setUp) ms")
        #expect(queued.allSatisfy { $0.requestStartDate!.microsecondsSince1970 >= opener.connectEndDate!.microsecondsSince1970 - 1_000 })
        // The wait is the queue's, not a phase's: a few bytes arrive at once (the in-process server
        // may answer late when the whole test run loads the machine, which lands in `wait`).
        #expect(t.allSatisfy { ($0.phases.receive ?? 0) < 100 }, "\(t.map(\.phases))")
        for transaction in queued {
            let fetch = transaction.fetchStartDate!.microsecondsSince1970
            let request = transaction.requestStartDate!.microsecondsSince1970
            #expect(request - fetch >= Int64(transaction.queue! * 1000) - 1, "the request leaves after the queue")
        }
    }

    /// Against an HTTP/1.1 server every parallel task opens its own connection at once: nothing
    /// waits for the first response (which libcurl's PIPEWAIT made them do, and charged to
    /// `receive`). That a --timeout shorter than two responses is then enough is checked end to end
    /// against the target process (ParallelTimingCLITests): the in-process server can be starved here.
    @Test func parallelHTTP11StartsEveryTaskAtOnce() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.http)/delay/700"]) { $0.count = 5; $0.parallel = 5; $0.timeoutMs = 20_000 }
        #expect(tasks.count == 5)
        #expect(tasks.allSatisfy { $0.error == nil }, "\(tasks.compactMap(\.error?.message))")
        let t = tasks.map { $0.transactionMetrics[0] }
        #expect(Set(t.compactMap(\.connectionID)).count == 5)
        #expect(t.allSatisfy { $0.queue! < 50 && !$0.isReusedConnection }, "no task waits: \(t.map(\.queue))")
        let starts = t.compactMap { $0.connectStartDate?.microsecondsSince1970 }
        #expect(starts.count == 5 && starts.max()! - starts.min()! < 300_000, "every connection starts at once: \(starts)")
        #expect(t.allSatisfy { ($0.phases.wait ?? 0) >= 690 && ($0.phases.receive ?? .infinity) < 100 }, "\(t.map(\.phases))")
    }

    @Test(arguments: [
        ("refused", ErrorCode.connectionRefused, nil as String?),
        ("status", .httpStatus, nil),
        ("truncate", .truncatedBody, nil),
        ("unknownCA", .tlsFailure, "unknownCA"),
        ("expired", .tlsFailure, "certificateExpired"),
        ("wrongHost", .tlsFailure, "hostnameMismatch"),
        ("timeout", .timedOut, nil),
        ("connectTimeout", .connectTimeout, nil),
        ("dns", .dnsFailure, nil),
        ("malformed", .malformedURL, nil),
        ("scheme", .unsupportedScheme, nil),
    ])
    func failuresAreClassifiedData(kind: String, code: ErrorCode, reason: String?) async throws {
        let target = try await SharedTarget.endpoints()
        var url = ""
        var configure: (inout ProbeOptions) -> Void = { _ in }
        switch kind {
        case "refused": url = target.refused + "/"
        case "status": url = target.http + "/status/404"
        case "truncate": url = target.http + "/truncate/100000"
        case "unknownCA": url = target.https + "/bytes/1"
        case "expired": url = target.httpsExpired + "/bytes/1"; configure = { $0.caCertPath = target.caFile }
        case "wrongHost": url = target.httpsWrongHost + "/bytes/1"; configure = { $0.caCertPath = target.caFile }
        case "timeout": url = target.http + "/delay/3000"; configure = { $0.timeoutMs = 300 }
        case "connectTimeout": url = target.blackhole + "/"; configure = { $0.connectTimeoutMs = 300 }
        case "dns": url = "http://no-such-host.invalid/"; configure = { $0.dohURL = target.refused.replacingOccurrences(of: "http:", with: "https:") + "/dns-query" }
        case "malformed": url = "http://[::1/"
        case "scheme": url = "gopher://127.0.0.1/"
        default: Issue.record("unknown case")
        }
        let task = try #require(try await probe([url], configure).first)
        let error = try #require(task.error, "expected \(code) for \(url)")
        #expect(error.code == code, "\(error)")
        if let reason { #expect(error.reason == reason, "\(error)") }
        #expect(!error.message.isEmpty)
        #expect(task.transactionMetrics.count == 1)
        let t = task.transactionMetrics[0]
        let phases = [t.phases.dns, t.phases.connect, t.phases.tls, t.phases.send, t.phases.wait, t.phases.receive].compactMap { $0 }
        if !phases.isEmpty, let total = t.phases.total {
            #expect(abs(phases.reduce(0, +) - total) < 0.0015)
        }
    }

    @Test func http3FailsClearlyWithoutQUIC() throws {
        var options = ProbeOptions()
        options.httpVersion = .http3
        if CurlLibrary.supportsHTTP3 {
            _ = try ProbeRunner(options: options, redactor: Redactor())
        } else {
            #expect(throws: TaskError.self) { _ = try ProbeRunner(options: options, redactor: Redactor()) }
            do {
                _ = try ProbeRunner(options: options, redactor: Redactor())
            } catch {
                #expect(error.code == .unsupportedFeature)
                #expect(error.message.contains(CurlLibrary.version))
            }
        }
    }

    @Test func secretsAreRedactedInTransactions() async throws {
        let target = try await SharedTarget.endpoints()
        let task = try #require(try await probe(["\(target.http)/headers?token=abc123&x=1"]) {
            $0.headers = [HeaderField(name: "Authorization", value: "Bearer s3cr3t")]
        }.first)
        let encoded = String(decoding: try JSONEncoder().encode(task), as: UTF8.self)
        #expect(!encoded.contains("s3cr3t") && !encoded.contains("abc123"))
        #expect(task.url.contains("token=REDACTED"))
    }

    /// Response headers are the server's, in order and trimmed, with the secret ones redacted, and
    /// each hop of a redirect keeps its own.
    @Test func responseHeadersAreParsedAndRedacted() async throws {
        let target = try await SharedTarget.endpoints()
        let tasks = try await probe(["\(target.http)/response-headers?Set-Cookie=sid%3Dx1&X-Kept=visible",
                                     "\(target.http)/redirect/1"])
        #expect(tasks.count == 2)
        let headers = try #require(tasks.first?.transactionMetrics.first?.response?.headers)
        #expect(headers.contains(HeaderField(name: "Set-Cookie", value: "REDACTED")))
        #expect(headers.contains(HeaderField(name: "X-Kept", value: "visible")))
        let hops = try #require(tasks.last?.transactionMetrics)
        #expect(hops.count == 2)
        #expect(hops.first?.response?.headers.contains { $0.name.lowercased() == "location" } == true)
        #expect(hops.last?.response?.headers.contains { $0.name.lowercased() == "location" } == false)
    }
}
