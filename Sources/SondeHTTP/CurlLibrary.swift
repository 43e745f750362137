import CurlShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// Process-wide libcurl facts: one-time initialisation and what the linked build supports.
public enum CurlLibrary {
    /// `curl_global_init`, done once before the first handle is made (not thread-safe by libcurl's
    /// contract, so it runs from a Swift global initialiser, which is guaranteed to run once).
    private static let initialised: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    @discardableResult
    public static func initialise() -> Bool {
        initialiseCalled = true
        return initialised
    }
    nonisolated(unsafe) private static var initialiseCalled = false

    /// Makes libcurl's OpenSSL backend write the TLS secrets of every connection to `path` in the
    /// SSLKEYLOGFILE format (RFC 9850), so that Wireshark can decrypt a capture. libcurl reads the
    /// `SSLKEYLOGFILE` variable once, in `curl_global_init`: this must come before any other use of
    /// libcurl in the process. The file is created readable by its owner only (it holds secrets).
    public static func enableKeyLog(path: String) throws(TaskError) {
        guard !initialiseCalled else {
            throw TaskError(code: .internalError, message: "--keylog came after libcurl was initialised")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TaskError(code: .localIOError, message: "cannot write the key log \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        setenv("SSLKEYLOGFILE", path, 1)
        initialise()
    }

    /// The linked libcurl's version string, e.g. "7.88.1".
    public static var version: String {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH), let text = info.pointee.version else { return "unknown" }
        return String(cString: text)
    }

    /// The linked TLS library, e.g. "OpenSSL/3.0.19".
    public static var sslVersion: String? {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH), let text = info.pointee.ssl_version else { return nil }
        return String(cString: text)
    }

    /// Feature names of the linked build that matter to sonde, as the report lists them (read once).
    public static let features: [String] = {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH) else { return [] }
        let bits = Int(info.pointee.features)
        let known: [(Int, String)] = [
            (Int(CURL_VERSION_SSL), "ssl"), (Int(CURL_VERSION_HTTP2), "http2"), (Int(CURL_VERSION_HTTP3), "http3"),
            (Int(CURL_VERSION_ALTSVC), "alt-svc"), (Int(CURL_VERSION_HSTS), "hsts"), (Int(CURL_VERSION_IPV6), "ipv6"),
            (Int(CURL_VERSION_LIBZ), "libz"), (Int(CURL_VERSION_BROTLI), "brotli"), (Int(CURL_VERSION_ZSTD), "zstd"),
            (Int(CURL_VERSION_ASYNCHDNS), "asynch-dns"), (Int(CURL_VERSION_UNIX_SOCKETS), "unix-sockets"),
        ]
        var names = known.filter { bits & $0.0 != 0 }.map(\.1)
        // DoH has no feature bit; libcurl has it since 7.62 unless built without it.
        if curlVersionNumber >= 0x073E00 { names.append("doh") }
        return names
    }()

    /// True when the linked libcurl can speak HTTP/3 (CURL_VERSION_HTTP3).
    public static var supportsHTTP3: Bool {
        features.contains("http3")
    }

    /// LIBCURL_VERSION_NUM of the linked library (0xXXYYZZ).
    public static var curlVersionNumber: Int {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH) else { return 0 }
        return Int(info.pointee.version_num)
    }
}
