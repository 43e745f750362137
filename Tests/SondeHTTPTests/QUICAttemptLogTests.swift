import CurlShim
import SondeCore
import Testing
@testable import SondeHTTP

/// libcurl 8.23's verbose text (CURLINFO_TEXT) of an `--http3` race against a port with no UDP
/// listener, as its debug callback gave it (TLS lines shortened), and what sonde keeps of it.
@Suite struct QUICAttemptLogTests {
    static let fallbackText = """
          Trying 127.0.0.1:18443...
        sendmsg() returned -1 (errno 111)
        QUIC connect to 127.0.0.1 port 18443 failed: Failed sending data to the peer
        Failed to connect to 127.0.0.1:18443 after 18 ms: Failed sending data to the peer
          Trying 127.0.0.1:18443...
        ALPN: curl offers h2,http/1.1
        TLSv1.3 (OUT), TLS handshake, Client hello (1):
        SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / x25519 / id-ecPublicKey
        ALPN: server accepted h2
        Established connection to 127.0.0.1 (127.0.0.1 port 18443) from 127.0.0.1 port 51240
        using HTTP/2
        [HTTP/2] [1] OPENED stream for https://127.0.0.1:18443/
        Request completely sent off
        Connection #0 to host 127.0.0.1:18443 left intact

        """

    @Test func keepsTheQUICLinesOfALostRace() {
        let log = QUICAttemptLog(text: Self.fallbackText)
        #expect(log.lines == ["sendmsg() returned -1 (errno 111)",
                              "QUIC connect to 127.0.0.1 port 18443 failed: Failed sending data to the peer"])
        #expect(log.socketErrno == 111)
        #expect(log.fallback.reason
            == "sendmsg() returned -1 (errno 111); QUIC connect to 127.0.0.1 port 18443 failed: Failed sending data to the peer")
    }

    @Test func aWorkingH3StreamLogsNothingToKeep() {
        let text = "using HTTP/3\n[HTTP/3] [0] OPENED stream for https://127.0.0.1:18444/\n[HTTP/3] [0] [:method: GET]\n"
        let log = QUICAttemptLog(text: text)
        #expect(log.lines.isEmpty && log.socketErrno == nil)
        #expect(log.fallback.reason.contains("libcurl logged no QUIC failure"))
    }

    @Test func otherQUICFailuresAndTheLengthBound() {
        let text = "QUIC: connection to 10.0.0.1 port 443 refused\nHTTP/3 stream 0 reset by server (error 0x10c)\n"
            + "ngtcp2_conn_handle_expiry returned error: ERR_IDLE_CLOSE\nrecvmsg() returned -1 (errno=113)\n"
        let log = QUICAttemptLog(text: text)
        #expect(log.lines.count == 4)
        #expect(log.socketErrno == 113)
        let long = QUICAttemptLog(text: String(repeating: "QUIC connect to h failed: x\n", count: 1) + "QUIC " + String(repeating: "y", count: 2_000))
        #expect(long.fallback.reason.count == HTTP3Fallback.maxReasonLength && long.fallback.reason.hasSuffix("…"))
    }

    /// `--http3-only` against a closed UDP port: libcurl says CURLE_SEND_ERROR, no errno, no local
    /// port; the verbose lines say the port refused, and that is the error.
    @Test func aRefusedQUICConnectionIsConnectionRefused() {
        let lines = QUICAttemptLog(text: Self.fallbackText).lines
        let failure = CurlFailure(curlCode: Int(CURLE_SEND_ERROR.rawValue),
                                  detail: "Failed to connect to 127.0.0.1:18443 after 14 ms: Failed sending data to the peer",
                                  url: "https://127.0.0.1:18443/", remote: "127.0.0.1:18443", quicAttempt: lines)
        let error = CurlErrorClassifier.classify(failure)
        #expect(error.code == .connectionRefused && error.reason == "quic", "\(error)")
        #expect(error.message.contains("UDP") && error.message.contains("errno 111"), "\(error.message)")
        // Without QUIC lines the same code keeps its old meaning.
        let plain = CurlFailure(curlCode: Int(CURLE_SEND_ERROR.rawValue), detail: "", connected: true, url: "https://h/")
        #expect(CurlErrorClassifier.classify(plain).code == .connectionClosed)
    }

    /// A transfer that could only use QUIC (`--http3-only`, an Alt-Svc alternative) and timed out
    /// before anything answered on UDP is a QUIC handshake timeout, never a TCP connect one; the
    /// same timeout without QUIC keeps the TCP message.
    @Test func aQUICOnlyTimeoutSaysQUIC() {
        let detail = "Connection timed out after 1000 milliseconds"
        let quic = CurlFailure(curlCode: Int(CURLE_OPERATION_TIMEDOUT.rawValue), detail: detail, url: "https://127.0.0.1:4433/",
                               remote: "127.0.0.1:4433", overQUIC: true)
        let error = CurlErrorClassifier.classify(quic)
        #expect(error.code == .connectTimeout && error.reason == "quic", "\(error)")
        #expect(error.message.contains("QUIC handshake with 127.0.0.1:4433") && !error.message.contains("TCP"), "\(error.message)")
        let tcp = CurlFailure(curlCode: Int(CURLE_OPERATION_TIMEDOUT.rawValue), detail: detail, url: "https://127.0.0.1:4433/",
                              remote: "127.0.0.1:4433")
        #expect(CurlErrorClassifier.classify(tcp).message.contains("TCP connect to 127.0.0.1:4433"))
    }
}
