import CurlShim
import Foundation
import SondeCore
import SondeHTTP

/// The first bytes of a response body, decoded as a client decodes it, for the `ipv6` finding's
/// search for IPv4 literals in the URLs a body hands out. The probe engine (`ProbeRunner`) counts
/// body bytes but keeps none, so this is one GET of its own through libcurl, as
/// `TLSHandshake`'s fetching probe is: no body sent, TLS not verified (the chain is `cert.chain`'s
/// finding), `Accept-Encoding` with every coding the running libcurl decodes, no redirect
/// followed, the audit's `--resolve` entries applied.
///
/// Bounds: at most `maxBytes` decoded bytes are kept, and the transfer is stopped there; the
/// connect timeout and the probe timeout bound the time. Blocks the calling thread; each call
/// makes its own easy handle.
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
        /// Wall time (ms).
        var milliseconds: Double
    }

    static func fetch(_ url: String, options: AuditOptions) -> Result {
        CurlLibrary.initialise()
        let started = monotonicMicroseconds()
        func elapsed() -> Double { Double(monotonicMicroseconds() - started) / 1000 }
        guard let handle = curl_easy_init() else {
            return Result(url: url, bytes: [], truncated: false, error: "libcurl could not create a handle", milliseconds: 0)
        }
        defer { curl_easy_cleanup(handle) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        var resolveList: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(resolveList) }
        let sink = Sink()
        var code = CURLE_OK
        func set(_ option: CURLoption, _ value: Int) { if code == CURLE_OK { code = sonde_easy_setopt_long(handle, option, value) } }
        func set(_ option: CURLoption, _ text: String) { if code == CURLE_OK { code = text.withCString { sonde_easy_setopt_pointer(handle, option, $0) } } }
        _ = sonde_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeRawPointer(errorBuffer))
        set(CURLOPT_URL, url)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_USERAGENT, "sonde-audit/\(SondeVersion.current)")
        // "": every coding this libcurl decodes (gzip, deflate, br, zstd as built).
        set(CURLOPT_ACCEPT_ENCODING, "")
        set(CURLOPT_SSL_VERIFYPEER, 0)
        set(CURLOPT_SSL_VERIFYHOST, 0)
        set(CURLOPT_PROXY, "")
        set(CURLOPT_CONNECTTIMEOUT_MS, max(1, options.connectTimeoutMs))
        set(CURLOPT_TIMEOUT_MS, max(1, options.probeTimeoutMs))
        if !options.resolve.isEmpty {
            for entry in options.resolve { resolveList = curl_slist_append(resolveList, entry) }
            if code == CURLE_OK { code = sonde_easy_setopt_pointer(handle, CURLOPT_RESOLVE, UnsafeRawPointer(resolveList)) }
        }
        if code == CURLE_OK { code = sonde_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, bodySampleWrite) }
        if code == CURLE_OK { code = sonde_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, UnsafeRawPointer(Unmanaged.passUnretained(sink).toOpaque())) }
        guard code == CURLE_OK else {
            return Result(url: url, bytes: [], truncated: false, error: "libcurl refused an option: \(String(cString: curl_easy_strerror(code)))",
                          milliseconds: elapsed())
        }
        let result = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        var status = 0
        _ = sonde_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var type: UnsafePointer<CChar>? = nil
        _ = sonde_easy_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &type)
        // The write callback stops the transfer once maxBytes are kept (CURLE_WRITE_ERROR).
        let stoppedAtBound = result == CURLE_WRITE_ERROR && sink.truncated
        let detail = String(cString: errorBuffer)
        return Result(url: url, status: status > 0 ? status : nil, contentType: type.map { String(cString: $0) }, bytes: sink.bytes,
                      truncated: sink.truncated,
                      error: result == CURLE_OK || stoppedAtBound ? nil : (detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail),
                      milliseconds: elapsed())
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

/// The decoded body bytes of one transfer, on the thread that runs `curl_easy_perform`.
private final class Sink {
    var bytes: [UInt8] = []
    var truncated = false

    /// Keeps what fits under `BodySample.maxBytes`; false once the bound is reached (stop).
    func add(_ data: UnsafeRawBufferPointer) -> Bool {
        let room = BodySample.maxBytes - bytes.count
        if data.count > room {
            bytes.append(contentsOf: data.prefix(max(0, room)))
            truncated = true
            return false
        }
        bytes.append(contentsOf: data)
        return true
    }
}

private let bodySampleWrite: sonde_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let buffer, let userdata else { return length }
    let sink = Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue()
    return sink.add(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}
