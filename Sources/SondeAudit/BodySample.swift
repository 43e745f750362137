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
        var connectToList: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(connectToList) }
        let sink = Sink(limit: max(0, min(maxBytes, Self.maxBytes)))
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
        if let connectTo {
            connectToList = curl_slist_append(connectToList, connectTo)
            if code == CURLE_OK { code = sonde_easy_setopt_pointer(handle, CURLOPT_CONNECT_TO, UnsafeRawPointer(connectToList)) }
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
        var primary: UnsafePointer<CChar>? = nil
        _ = sonde_easy_getinfo_string(handle, CURLINFO_PRIMARY_IP, &primary)
        let remote = primary.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        // The write callback stops the transfer once maxBytes are kept (CURLE_WRITE_ERROR).
        let stoppedAtBound = result == CURLE_WRITE_ERROR && sink.truncated
        let detail = String(cString: errorBuffer)
        return Result(url: url, status: status > 0 ? status : nil, contentType: type.map { String(cString: $0) }, bytes: sink.bytes,
                      truncated: sink.truncated,
                      error: result == CURLE_OK || stoppedAtBound ? nil : (detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail),
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

/// The decoded body bytes of one transfer, on the thread that runs `curl_easy_perform`.
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

private let bodySampleWrite: sonde_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let buffer, let userdata else { return length }
    let sink = Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue()
    return sink.add(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}
