import CurlShim
import Foundation
import SondeCore
import SondeHTTP

/// The first bytes of a response body, decoded as a client decodes it, for the `ipv6` finding's
/// search for IPv4 literals in the URLs a body hands out. The probe engine (`ProbeRunner`) counts
/// body bytes but keeps none, so this is one GET of its own on SondeHTTP's `EasyHandle`, as
/// `TLSHandshake`'s fetching probe is: no body sent, TLS not verified (the chain is `cert.chain`'s
/// finding), `Accept-Encoding` with every coding the running libcurl decodes, no redirect
/// followed, the audit's `--resolve` entries applied.
///
/// Bounds: at most `maxBytes` decoded bytes are kept, and the transfer is stopped there; the
/// connect timeout and the probe timeout bound the time. Blocks the calling thread; each call
/// makes its own `EasyHandle`.
enum BodySample {
    /// The most decoded bytes read (256 KiB): an API response's links are near its start, and a
    /// larger body is `http.payload-size`'s business.
    static let maxBytes = 256 * 1024

    struct Result: Sendable, Equatable {
        var url: String
        var status: Int?
        var contentType: String?
        /// The decoded bytes read, at most `maxBytes`.
        var bytes: [UInt8]
        /// The body went on past `maxBytes` (the transfer was stopped there).
        var truncated: Bool
        /// libcurl's error, nil when the body (or its first `maxBytes`) arrived.
        var error: String?
        /// libcurl's result code (`CURLcode`; 0 when the body arrived or the bound stopped it).
        var code: Int = 0
        /// The address connected to (CURLINFO_PRIMARY_IP), nil when no connection was made.
        var remoteAddress: String? = nil
        /// Wall time (ms).
        var milliseconds: Double
    }

    /// `maxBytes`: the most decoded bytes kept (at most `BodySample.maxBytes`); `connectTo`: a
    /// CURLOPT_CONNECT_TO entry (`HOST:PORT:CONNECT-HOST:CONNECT-PORT`), to reach an Alt-Svc
    /// alternative with the origin's name in SNI and Host.
    static func fetch(_ url: String, options: AuditOptions, maxBytes: Int = BodySample.maxBytes, connectTo: String? = nil) -> Result {
        let started = monotonicMicroseconds()
        func elapsed() -> Double { Double(monotonicMicroseconds() - started) / 1000 }
        let easy: EasyHandle
        do {
            easy = try EasyHandle()
        } catch {
            return Result(url: url, bytes: [], truncated: false, error: "libcurl could not create a handle", milliseconds: 0)
        }
        let sink = Sink(limit: max(0, min(maxBytes, Self.maxBytes)))
        do {
            try easy.setURL(url)
            try easy.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
            try easy.set(CURLOPT_USERAGENT, string: "sonde-audit/\(SondeVersion.current)")
            // "": every coding this libcurl decodes (gzip, deflate, br, zstd as built).
            try easy.set(CURLOPT_ACCEPT_ENCODING, string: "")
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0)
            try easy.set(CURLOPT_PROXY, string: "")
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, options.connectTimeoutMs))
            try easy.set(CURLOPT_TIMEOUT_MS, max(1, options.probeTimeoutMs))
            if !options.resolve.isEmpty { try easy.setResolve(options.resolve) }
            if let connectTo { try easy.setConnectTo([connectTo]) }
        } catch {
            let code = error.curlCode.map { CURLcode(UInt32(clamping: $0)) } ?? CURLE_FAILED_INIT
            return Result(url: url, bytes: [], truncated: false, error: "libcurl refused an option: \(EasyHandle.describe(code))",
                          milliseconds: elapsed())
        }
        easy.bodyConsumer = { sink.add($0) }
        let result = easy.perform()
        easy.bodyConsumer = nil
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        let remote = easy.string(CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
        // The body consumer stops the transfer once maxBytes are kept (CURLE_WRITE_ERROR).
        let stoppedAtBound = result == CURLE_WRITE_ERROR && sink.truncated
        let detail = easy.errorDetail
        return Result(url: url, status: status > 0 ? status : nil, contentType: easy.string(CURLINFO_CONTENT_TYPE), bytes: sink.bytes,
                      truncated: sink.truncated,
                      error: result == CURLE_OK || stoppedAtBound ? nil : (detail.isEmpty ? EasyHandle.describe(result) : detail),
                      code: stoppedAtBound ? 0 : Int(result.rawValue), remoteAddress: remote, milliseconds: elapsed())
    }

    /// The URLs with an IPv4 literal host in `text` (`http`, `https`, `ws`, `wss`; a user-info and a
    /// port allowed), each once, in order, at most `limit`.
    static func ipv4LiteralURLs(in text: String, limit: Int = 16) -> [String] {
        var found: [String] = []
        let pattern = /(?i)\b(?:https?|wss?):\/\/(?:[^\/\s"'<>@]*@)?(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?::\d{1,5})?(?:[\/?#][^\s"'<>\\]*)?/
        for match in text.matches(of: pattern) {
            guard HostResolver.ipv4(match.output.1) != nil else { continue }
            let url = String(match.output.0)
            if !found.contains(url) { found.append(url) }
            if found.count >= limit { break }
        }
        return found
    }
}

/// The decoded body bytes of one transfer, on the thread that runs it.
private final class Sink {
    let limit: Int
    var bytes: [UInt8] = []
    var truncated = false

    init(limit: Int) { self.limit = limit }

    /// Keeps what fits under `limit`; false once the bound is reached (stop).
    func add(_ data: UnsafeRawBufferPointer) -> Bool {
        let room = limit - bytes.count
        if data.count > room {
            bytes.append(contentsOf: data.prefix(max(0, room)))
            truncated = true
            return false
        }
        bytes.append(contentsOf: data)
        return true
    }
}
