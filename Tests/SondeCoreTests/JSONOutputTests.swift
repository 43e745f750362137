import Foundation
import Testing
@testable import SondeCore

@Suite struct JSONOutputTests {
    /// Every field set, strings that need escaping, and a nested error: the hand-written writer
    /// must decode to the same value and mean the same JSON as Foundation's encoder.
    static let hostile = "quote\" backslash\\ newline\n tab\t nul\u{0} bell\u{7} del\u{7F} é 🦊 </script>"
    static func fullTask() -> ProbeTask {
        let start = Timestamp(microsecondsSince1970: 1_790_000_000_123_456)
        let certificate = PeerCertificate(subject: "CN=" + hostile, issuer: "CN=ca", serialNumber: "01",
                                          signatureAlgorithm: "sha256WithRSAEncryption", publicKeyAlgorithm: "rsaEncryption",
                                          notBefore: start, notAfter: start.adding(microseconds: 86_400_000_000),
                                          fingerprintSHA256: String(repeating: "ab", count: 32), dnsNames: ["h", hostile], ipAddresses: ["127.0.0.1", "::1"],
                                          subjectDN: "CN=" + hostile, issuerDN: "CN=ca")
        let metrics = TransactionMetrics(
            request: RequestRecord(method: "POST", url: "https://h/p?q=" + hostile, headers: [HeaderField(name: "X", value: hostile)]),
            response: ResponseRecord(statusCode: 503, headers: [HeaderField(name: "Server", value: "nginx"), HeaderField(name: "", value: "")]),
            fetchStartDate: start, domainLookupStartDate: start, domainLookupEndDate: start.adding(microseconds: 1),
            connectStartDate: start.adding(microseconds: 1), secureConnectionStartDate: start.adding(microseconds: 20),
            secureConnectionEndDate: start.adding(microseconds: 300), connectEndDate: start.adding(microseconds: 300),
            requestStartDate: start.adding(microseconds: 301), requestEndDate: start.adding(microseconds: 302),
            responseStartDate: start.adding(microseconds: 999), responseEndDate: start.adding(microseconds: 1_000_001),
            networkProtocolName: "h2", libcurlQueue: 0.029, isReusedConnection: false, isProxyConnection: true, connectionID: 7,
            http3Fallback: HTTP3Fallback(reason: "QUIC connect failed: " + hostile),
            altSvc: AltSvcUse(source: .cacheFile, alternative: "[::1]:443"),
            remoteAddress: "::1", remotePort: 443, localAddress: "::1", localPort: 50_123,
            negotiatedTLSProtocolVersion: "TLSv1.3", negotiatedTLSCipherSuite: "TLS_AES_128_GCM_SHA256", tlsSessionReused: false,
            peerCertificates: [certificate],
            countOfRequestHeaderBytesSent: 120, countOfRequestBodyBytesSent: 5,
            countOfResponseHeaderBytesReceived: 200, countOfResponseBodyBytesReceived: Int64.max,
            phases: Phases(dns: 0.001, connect: 0.019, tls: 0.28, send: 0.001, wait: 0.697, receive: 1000.002, total: 1000.001),
            capture: CaptureEvidence(flow: "a>b"))
        let bare = TransactionMetrics(request: RequestRecord(method: "GET", url: "http://h/", headers: []))
        return ProbeTask(url: "https://h/" + hostile, iteration: 3, taskInterval: TaskInterval(start: start, durationMs: 1000.5),
                         redirectCount: 1, error: TaskError(code: .httpStatus, message: hostile, curlCode: 22, reason: "x"),
                         transactionMetrics: [metrics, bare])
    }

    static func written(_ value: some JSONWritable) -> Data {
        var output = JSONOutput()
        value.writeJSON(to: &output)
        return Data(output.bytes)
    }

    @Test func aFullTaskDecodesToAnEqualValue() throws {
        let task = Self.fullTask()
        let decoded = try JSONDecoder().decode(ProbeTask.self, from: Self.written(task))
        #expect(decoded == task)
    }

    @Test func meansTheSameJSONAsFoundationsEncoder() throws {
        let task = Self.fullTask()
        let ours = try JSONSerialization.jsonObject(with: Self.written(task)) as? NSDictionary
        let foundations = try JSONSerialization.jsonObject(with: JSONEncoder().encode(task)) as? NSDictionary
        #expect(ours != nil)
        #expect(ours == foundations)
    }

    static func fullAttempt() -> SoakAttempt {
        let start = Timestamp(microsecondsSince1970: 1_800_000_000_123_456)
        var handshake = WebSocketHandshake()
        handshake.dnsMs = 1.25
        handshake.connectMs = 0.5
        handshake.upgradeMs = 2
        handshake.totalMs = 3.75
        handshake.statusCode = 101
        handshake.subprotocol = "chat"
        handshake.extensions = ["permessage-deflate", "x\u{1}\"y"]
        handshake.responseHeaders = [HeaderField(name: "Upgrade", value: "websocket"), HeaderField(name: "X", value: "<\n>")]
        handshake.remoteAddress = "::1"
        handshake.remotePort = 443
        handshake.localPort = 50000
        handshake.tlsProtocolVersion = "TLSv1.3"
        var attempt = SoakAttempt(connection: 7, attempt: 3, startedAt: start, backoffMs: 123.5, backoffFailure: 2, handshake: handshake)
        attempt.openedAt = start.adding(microseconds: 4000)
        attempt.closedAt = start.adding(microseconds: 9_000_000)
        attempt.closeCode = 4001
        attempt.closeReason = "bye \"now\""
        attempt.closedBy = "server"
        attempt.cause = .closeFrame
        attempt.timeToRecoverMs = 321
        attempt.pings = .init()
        attempt.pings.sent = 9
        attempt.pings.answered = 8
        attempt.pings.unanswered = 1
        attempt.messages.sent = 100
        attempt.messages.received = 97
        attempt.messages.lost = 2
        attempt.messages.corrupted = 1
        attempt.messages.fromServer.count = 3
        attempt.messages.fromServer.bytes = 42
        attempt.gaveUp = true
        return attempt
    }

    @Test func soakLinesAgreeWithFoundationBothWays() throws {
        var bare = SoakAttempt(connection: 0, attempt: 1, startedAt: Timestamp(microsecondsSince1970: 0), backoffMs: nil, backoffFailure: nil)
        bare.error = TaskError(code: .connectionRefused, message: "refused")
        for attempt in [Self.fullAttempt(), bare] {
            let ours = Self.written(attempt)
            #expect(try JSONDecoder().decode(SoakAttempt.self, from: ours) == attempt)
            #expect(try JSONReader.read(SoakAttempt.self, from: Array(ours)) == attempt)
            let foundations = try JSONEncoder().encode(attempt)
            #expect(try JSONReader.read(SoakAttempt.self, from: Array(foundations)) == attempt)
            #expect(try JSONSerialization.jsonObject(with: ours) as? NSDictionary
                    == JSONSerialization.jsonObject(with: foundations) as? NSDictionary)
        }
        let samples = SoakSamples(pings: [[1, 2, 3, 4], [5, 6, 7, 8]], missed: [[1, 1, 9]], echoes: [10, 20])
        #expect(try JSONDecoder().decode(SoakSamples.self, from: Self.written(samples)) == samples)
        #expect(try JSONReader.read(SoakSamples.self, from: Array(Self.written(samples))) == samples)
    }

    @Test func escapesEveryControlCharacter() throws {
        var output = JSONOutput()
        let all = String(decoding: (0..<0x20).map { UInt8($0) } + [0x22, 0x5C, 0x41], as: UTF8.self)
        output.string(all)
        let text = String(decoding: output.bytes, as: UTF8.self)
        #expect(!text.utf8.dropFirst().dropLast().contains { $0 < 0x20 })
        let back = try JSONDecoder().decode(String.self, from: Data(output.bytes))
        #expect(back == all)
    }

    @Test func nonFiniteDoublesBecomeNullAndIntegersStayIntegers() {
        var output = JSONOutput()
        output.array([Double.nan, .infinity, 3, -0.5, 1e-6, 123456789.125]) { $0.double($1) }
        #expect(String(decoding: output.bytes, as: UTF8.self) == "[null,null,3,-0.5,1e-06,123456789.125]")
    }

    @Test func millisecondsWithMicrosecondDigitsAreWrittenExactly() throws {
        // Every duration sonde reports is whole microseconds in milliseconds: the writer's
        // fast path must print each one so that it reads back as the same Double.
        var generator = SystemRandomNumberGenerator()
        var micros: [Int64] = [1, 10, 100, 999, 1_001, 1_010, 123_456, 999_999_999, 4_503_599_627_370_495 / 10_000]
        micros += (0..<2_000).map { _ in Int64.random(in: 1...10_000_000_000, using: &generator) }
        var values: [Double] = [217.77200000000002, 0.1 + 0.2, 1e-7, 5e-324]
        for micro in micros {
            values.append(Double(micro) / 1000)
            values.append(-Double(micro) / 1000)
        }
        for value in values {
            var output = JSONOutput()
            output.double(value)
            let text = String(decoding: output.bytes, as: UTF8.self)
            #expect(Double(text) == value, "\(text) for \(value)")
            #expect(try JSONDecoder().decode(Double.self, from: Data(output.bytes)) == value, "\(text)")
        }
    }

    @Test func stringsNeedingEscapesAnywhereComeBackWhole() throws {
        let long = String(repeating: "abcdefgh", count: 600)  // past the initial capacity
        let cases = ["", "\"", "\"start", "end\\", "mid\ndle", long, long + "\u{1}" + long, "é🦊\u{7F}", Self.hostile]
        var output = JSONOutput(capacity: 16)
        output.array(cases) { $0.string($1) }
        #expect(try JSONDecoder().decode([String].self, from: Data(output.bytes)) == cases)
    }

    /// The one-step header object writes what `object` with two members writes, wherever it stands.
    @Test func nameValueObjectsAreTheTwoMemberObject() {
        let texts = ["", "Content-Type", "v\"q\\b", "line\nbreak\t\u{01}", "ünï😀", String(repeating: "x", count: 5_000)]
        var oneStep = JSONOutput(capacity: 8)
        var general = JSONOutput(capacity: 8)
        for output in [0, 1] {
            func write(_ o: inout JSONOutput) {
                o.object { top in
                    top.member("n", 1)
                    top.key("headers")
                    top.array(texts.indices) { a, index in
                        let name = texts[index], value = texts[texts.count - 1 - index]
                        if output == 0 {
                            a.nameValueObject(name: name, value: value)
                        } else {
                            a.object { h in h.member("name", name); h.member("value", value) }
                        }
                    }
                    top.member("after", true)
                }
            }
            if output == 0 { write(&oneStep) } else { write(&general) }
        }
        #expect(oneStep.bytes == general.bytes)
        #expect(oneStep.bytes.count > 10_000)
    }

    @Test func aCopyKeepsItsOwnBytes() {
        var first = JSONOutput(capacity: 16)
        first.object { $0.member("a", "x") }
        var second = first
        second.reset()
        second.object { $0.member("b", String(repeating: "y", count: 100)) }
        first.appendRaw(Array(" ".utf8))
        #expect(String(decoding: first.bytes, as: UTF8.self) == #"{"a":"x"} "#)
        #expect(second.bytes.count == 108)
    }

    @Test func nestingPastSixtyFourLevelsStaysValidJSON() throws {
        func nest(_ output: inout JSONOutput, _ depth: Int) {
            output.array([0, 1]) { output, element in
                if element == 0 && depth < 100 { nest(&output, depth + 1) } else { output.int(depth) }
            }
        }
        var output = JSONOutput()
        nest(&output, 0)
        let text = String(decoding: output.bytes, as: UTF8.self)
        #expect(text.hasPrefix(String(repeating: "[", count: 101) + "100,100],99]"))
        #expect(text.hasSuffix(",1],0]"))
        #expect(try JSONSerialization.jsonObject(with: Data(output.bytes)) is NSArray)
    }

    @Test func resetKeepsNothingOfThePreviousLine() {
        var output = JSONOutput()
        output.object { $0.member("a", 1) }
        output.reset()
        output.object { $0.member("b", "x") }
        #expect(String(decoding: output.bytes, as: UTF8.self) == #"{"b":"x"}"#)
    }
}

@Suite struct TimestampFormattingTests {
    /// The reference: libc's gmtime_r, what the previous implementation used.
    static func viaGmtime(_ micros: Int64) -> String {
        var seconds = time_t(micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000)
        let fraction = micros - Int64(seconds) * 1_000_000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(fraction))
    }

    @Test func knownDates() {
        #expect(Timestamp(microsecondsSince1970: 0).description == "1970-01-01T00:00:00.000000Z")
        #expect(Timestamp(microsecondsSince1970: -1).description == "1969-12-31T23:59:59.999999Z")
        #expect(Timestamp(utcYear: 2024, month: 2, day: 29, hour: 23, minute: 59, second: 59, microsecond: 5)?.description
            == "2024-02-29T23:59:59.000005Z")
        #expect(Timestamp(utcYear: 2100, month: 3, day: 1, hour: 0, minute: 0, second: 0)?.description
            == "2100-03-01T00:00:00.000000Z")
    }

    @Test func agreesWithGmtimeOnRandomInstants() {
        var generator = SystemRandomNumberGenerator()
        // 1900 … 2200, microsecond resolution (a few thousand: cheap even in a debug build).
        for _ in 0..<3_000 {
            let micros = Int64.random(in: -2_208_988_800_000_000...7_258_118_400_000_000, using: &generator)
            let ours = Timestamp(microsecondsSince1970: micros).description
            #expect(ours == Self.viaGmtime(micros), "\(micros)")
            if ours != Self.viaGmtime(micros) { return }
            #expect(Timestamp(iso8601: ours)?.microsecondsSince1970 == micros)
        }
    }
}
