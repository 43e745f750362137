import Foundation
@testable import SondeSuite
import Testing

/// Issue 41: `URLArgument`, the one check of a URL a user gives.
@Suite struct URLArgumentTests {
    /// What a question to a port would have answered: every host and port asked, in order.
    final class Asked: @unchecked Sendable {
        var questions: [String] = []
        let answer: Bool?
        init(_ answer: Bool?) { self.answer = answer }
        func ask(_ host: String, _ port: Int?) -> Bool? {
            questions.append("\(host) \(port.map(String.init) ?? "-")")
            return answer
        }
    }

    func message(_ text: String, _ schemes: URLArgument.Schemes = URLArgument.http, answer: Bool? = nil) -> (String?, [String]) {
        let asked = Asked(answer)
        return (URLArgument.problem(text, key: "urls", schemes: schemes, answersTLS: asked.ask)?.message, asked.questions)
    }

    @Test func urlsOfTheCheckSchemesPass() {
        for url in ["http://127.0.0.1/", "HTTPS://example.com:8443/x?y=1", "https://[::1]:8443/"] {
            #expect(message(url).0 == nil, "\(url)")
        }
        #expect(message("wss://127.0.0.1/ws", URLArgument.webSocket).0 == nil)
    }

    @Test func aURLWithoutASchemeGetsTheURLMeant() {
        let tls = message("127.0.0.1:38443/health.json", answer: true)
        #expect(tls.0 == "'127.0.0.1:38443/health.json' is not a URL (it has no scheme): did you mean https://127.0.0.1:38443/health.json?")
        #expect(tls.1 == ["127.0.0.1 38443"])
        #expect(message("127.0.0.1:38080/x", answer: false).0?.hasSuffix("did you mean http://127.0.0.1:38080/x?") == true)
        // Not asked (a name, another machine): https://, http:// for port 80.
        #expect(message("api.example.com/v1").0?.hasSuffix("did you mean https://api.example.com/v1?") == true)
        #expect(message("example.com:80/").0?.hasSuffix("did you mean http://example.com:80/?") == true)
        #expect(message("//[::1]:8443/x", answer: true).0?.hasSuffix("did you mean https://[::1]:8443/x?") == true)
        #expect(message("localhost:8443", URLArgument.webSocket, answer: true).0?.hasSuffix("did you mean wss://localhost:8443?") == true)
        #expect(message("localhost:8080/ws", URLArgument.webSocket, answer: false).0?.hasSuffix("did you mean ws://localhost:8080/ws?") == true)
    }

    @Test func aWordIsNotAHost() {
        for word in ["min", "5", "report", "1.5", "not a url", ""] {
            let (said, asked) = message(word)
            #expect(said == "'\(word)' is not a URL: give an http:// or https:// URL", "\(word): \(said ?? "nil")")
            #expect(asked.isEmpty, "\(word) was asked about: \(asked)")
        }
        #expect(message("min", URLArgument.webSocket).0 == "'min' is not a URL: give a ws:// or wss:// URL")
    }

    @Test func anotherSchemeIsRefusedWithItsCounterpart() {
        #expect(message("ftp://127.0.0.1/x").0
                == "'ftp://127.0.0.1/x': ftp:// is not supported here, only http:// and https://")
        #expect(message("wss://h/ws").0?.hasSuffix("did you mean https://h/ws?") == true)
        #expect(message("http://h:8080/ws", URLArgument.webSocket).0?.hasSuffix("did you mean ws://h:8080/ws?") == true)
        #expect(message("HTTPS://h/ws", URLArgument.webSocket).0?.hasSuffix("did you mean wss://h/ws?") == true)
        // Nothing is asked of a URL with a scheme.
        #expect(message("ftp://127.0.0.1:21/").1.isEmpty)
    }

    @Test func schemesAreReadAsRFC3986Says() {
        #expect(URLArgument.scheme(of: "svn+ssh://h/") == "svn+ssh")
        #expect(URLArgument.scheme(of: "HTTP://h/") == "http")
        #expect(URLArgument.scheme(of: "1http://h/") == nil)
        #expect(URLArgument.scheme(of: "localhost:8080/a://b") == nil)
        #expect(URLArgument.scheme(of: "://h") == nil)
    }

    /// Only loopback addresses are asked, and `localhost` without a resolver.
    @Test func onlyLoopbackIsAsked() {
        #expect(TLSAnswerProbe.loopbackAddresses("127.0.0.1").count == 1)
        #expect(TLSAnswerProbe.loopbackAddresses("127.9.8.7").count == 1)
        #expect(TLSAnswerProbe.loopbackAddresses("::1").count == 1)
        #expect(TLSAnswerProbe.loopbackAddresses("LOCALHOST").count == 2)
        for host in ["10.0.0.1", "192.168.1.1", "::2", "example.com", "localhost.example.com", "128.0.0.1"] {
            #expect(TLSAnswerProbe.loopbackAddresses(host).isEmpty, "\(host)")
            #expect(TLSAnswerProbe.answersTLS(host: host, port: 443) == nil, "\(host)")
        }
    }

    /// The ClientHello is a well-formed record: a handshake record of TLS 1.0 legacy version
    /// whose length fields agree, and nothing else.
    @Test func theClientHelloIsOneHandshakeRecord() {
        let hello = TLSAnswerProbe.clientHello()
        #expect(hello.count > 9 && hello[0] == 22 && hello[1] == 3)
        let recordLength = Int(hello[3]) << 8 | Int(hello[4])
        #expect(recordLength == hello.count - 5)
        #expect(hello[5] == 1, "a ClientHello")
        let bodyLength = Int(hello[6]) << 16 | Int(hello[7]) << 8 | Int(hello[8])
        #expect(bodyLength == hello.count - 9)
    }
}
