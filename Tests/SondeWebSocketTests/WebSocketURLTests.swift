import SondeCore
import Testing
@testable import SondeWebSocket

@Suite struct WebSocketURLTests {
    @Test func splitsWhatTheHandshakeNeeds() throws {
        let url = try WebSocketURL("wss://Example.org/chat?room=1")
        #expect(url.secure && url.port == 443 && url.requestTarget == "/chat?room=1" && url.hostHeader == "example.org")
        let local = try WebSocketURL("ws://127.0.0.1:8080")
        #expect(!local.secure && local.port == 8080 && local.requestTarget == "/" && local.hostIsAddress)
        #expect(local.hostHeader == "127.0.0.1:8080")
        let v6 = try WebSocketURL("ws://[::1]:9000/x")
        #expect(v6.host == "::1" && v6.hostHeader == "[::1]:9000" && v6.hostIsAddress)
    }

    @Test(arguments: [
        ("http://example.org/", ErrorCode.unsupportedScheme),
        ("ws://", .malformedURL),
        ("not a url", .malformedURL),
        ("ws://example.org:70000/", .malformedURL),
        ("ws://example.org/#frag", .malformedURL),
    ])
    func rejectsWhatItCannotUse(text: String, code: ErrorCode) {
        #expect(throws: TaskError.self) { try WebSocketURL(text) }
        do { _ = try WebSocketURL(text) } catch { #expect(error.code == code) }
    }
}
