import CurlShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// A plain TCP connection that libcurl opens (CURLOPT_CONNECT_ONLY on `http://host:port/`, a fresh connection, with
/// the caller's resolve entries and connect bound, no proxy), over which the caller speaks its own
/// protocol with `curl_easy_send`/`curl_easy_recv` (https://curl.se/libcurl/c/curl_easy_send.html).
/// `sonde audit`'s client simulation sends its own ClientHello this way, so the connection goes
/// where every other audit connection goes (resolve overrides, `--link`'s namespace).
///
/// Threading: one thread at a time; `close()` (or deinit) ends the connection.
public final class RawTCPConnection {
    private var easy: EasyHandle?
    private let socket: Int32

    /// Connects, or throws a `TaskError` saying why not (libcurl's message).
    /// - Parameters:
    ///   - resolve: CURLOPT_RESOLVE entries (`host:port:address`); empty: the system resolver.
    ///   - connectTimeoutMs: the connect bound (ms, > 0).
    public init(host: String, port: Int, resolve: [String], connectTimeoutMs: Int) throws(TaskError) {
        let easy = try EasyHandle()
        let shown = host.contains(":") ? "[\(host)]" : host
        try easy.setURL("http://\(shown):\(port)/")
        try easy.set(CURLOPT_PROTOCOLS_STR, string: "http")
        try easy.set(CURLOPT_CONNECT_ONLY, 1)
        try easy.set(CURLOPT_FRESH_CONNECT, 1)
        try easy.set(CURLOPT_PROXY, string: "")
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, connectTimeoutMs))
        if !resolve.isEmpty { try easy.setResolve(resolve) }
        let code = curl_easy_perform(easy.raw)
        guard code == CURLE_OK else {
            let detail = easy.errorDetail
            throw TaskError(code: code == CURLE_OPERATION_TIMEDOUT ? .connectTimeout : code == CURLE_COULDNT_RESOLVE_HOST ? .dnsFailure : .connectionRefused,
                            message: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail, curlCode: Int(code.rawValue))
        }
        socket = easy.activeSocket
        guard socket >= 0 else { throw TaskError(code: .internalError, message: "libcurl gave no socket for the connection") }
        self.easy = easy
    }

    /// Sends all of `bytes` before `deadline` (monotonic µs); false when the connection failed or the time ran out.
    public func send(_ bytes: [UInt8], deadline: Int64) -> Bool {
        guard let easy else { return false }
        var offset = 0
        while offset < bytes.count {
            var sent = 0
            let code = bytes.withUnsafeBytes { buffer in
                curl_easy_send(easy.raw, buffer.baseAddress.map { $0 + offset }, bytes.count - offset, &sent)
            }
            if code == CURLE_AGAIN {
                guard wait(for: Int16(POLLOUT), deadline: deadline) else { return false }
                continue
            }
            guard code == CURLE_OK else { return false }
            offset += sent
        }
        return true
    }

    /// Up to `maximum` bytes, waiting until `deadline` (monotonic µs) for some; [] when the peer
    /// closed, nil when the time ran out or the connection failed.
    public func receive(maximum: Int = 16_384, deadline: Int64) -> [UInt8]? {
        guard let easy, maximum > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            var received = 0
            let code = buffer.withUnsafeMutableBytes { curl_easy_recv(easy.raw, $0.baseAddress, maximum, &received) }
            if code == CURLE_AGAIN {
                guard wait(for: Int16(POLLIN), deadline: deadline) else { return nil }
                continue
            }
            guard code == CURLE_OK else { return code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING ? [] : nil }
            return Array(buffer.prefix(received))
        }
    }

    /// Closes the connection (libcurl closes the socket with the handle).
    public func close() { easy = nil }

    private func wait(for events: Int16, deadline: Int64) -> Bool {
        let left = (deadline - monotonicMicroseconds()) / 1000
        guard left > 0 else { return false }
        var descriptor = pollfd(fd: socket, events: events, revents: 0)
        let ready = poll(&descriptor, 1, Int32(min(left, 60_000)))
        return ready > 0
    }
}
