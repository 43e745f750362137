import CurlShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore
import Synchronization

/// Process-wide libcurl facts: one-time initialisation and what the linked build supports.
public enum CurlLibrary {
    /// `curl_global_init`, done once before the first handle is made (not thread-safe by libcurl's
    /// contract, so it runs from a Swift global initialiser, which is guaranteed to run once).
    private static let initialised: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    @discardableResult
    public static func initialise() -> Bool {
        initialiseCalled.store(true, ordering: .relaxed)
        return initialised
    }
    private static let initialiseCalled = Atomic<Bool>(false)

    /// Makes libcurl's OpenSSL backend write the TLS secrets of every connection to `path` in the
    /// SSLKEYLOGFILE format (RFC 9850), so that Wireshark can decrypt a capture. libcurl reads the
    /// `SSLKEYLOGFILE` variable once, in `curl_global_init`: this must come before any other use of
    /// libcurl in the process. The file is created readable by its owner only (it holds secrets).
    public static func enableKeyLog(path: String) throws(TaskError) {
        guard !initialiseCalled.load(ordering: .relaxed) else {
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

    /// The file of the libcurl this process runs on, as the dynamic linker opened it (often a
    /// libcurl.so.4 symlink), nil when unknown.
    public static var loadedPath: String? {
        guard let text = sonde_libcurl_path() else { return nil }
        let path = String(cString: text)
        return path.isEmpty ? nil : path
    }

    /// The file of the running libcurl with symlinks resolved, read at the first use of `path` or
    /// `loadedPath` (so it stays right if the symlink goes away later); nil when unknown.
    public static var path: String? {
        guard let text = sonde_libcurl_real_path() else { return nil }
        let path = String(cString: text)
        return path.isEmpty ? loadedPath : path
    }

    /// The file of the libssl that the running libcurl uses (the one sonde's TLS reader calls),
    /// nil when it has none or uses another TLS backend.
    public static var tlsLibraryPath: String? {
        sonde_tls_library_path().map { String(cString: $0) }
    }

    /// That libssl's own version text (OpenSSL_version), e.g. "OpenSSL 3.6.5 30 Sep 2025".
    public static var tlsLibraryVersion: String? {
        sonde_tls_library_version().map { String(cString: $0) }
    }

    /// The HTTP/2 library, e.g. "1.52.0" (nghttp2), nil when the build has none.
    public static var http2Library: String? {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH), info.pointee.age.rawValue >= CURLVERSION_FIFTH.rawValue,
              let text = info.pointee.nghttp2_version, info.pointee.features & Int32(CURL_VERSION_HTTP2) != 0 else { return nil }
        return "nghttp2/" + String(cString: text)
    }

    /// The QUIC and HTTP/3 libraries, e.g. "ngtcp2/1.25.0 nghttp3/1.18.0", nil without HTTP/3.
    public static var quicLibrary: String? {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH), info.pointee.age.rawValue >= CURLVERSION_FIFTH.rawValue,
              let text = info.pointee.quic_version else { return nil }
        return String(cString: text)
    }

    /// libcurl 8.2.0 added CURLINFO_CONN_ID (libcurl's own connection id).
    public static var hasConnectionID: Bool { ModernCurlInfo.connectionID.available }
    /// libcurl 8.6.0 added CURLINFO_QUEUE_TIME_T (time a transfer waited in libcurl's queue).
    public static var hasQueueTime: Bool { ModernCurlInfo.queueTime.available }

    /// What the running libcurl lacks of what sonde can use, one sentence each; empty on a modern
    /// libcurl built with HTTP/3.
    public static var lacks: [String] {
        var missing: [String] = []
        if !supportsHTTP3 { missing.append("http3: no HTTP/3 (QUIC); --http3 and --http3-only are refused") }
        if !hasConnectionID { missing.append("connId: no CURLINFO_CONN_ID (libcurl 8.2.0)") }
        if !hasQueueTime { missing.append("queueTime: no CURLINFO_QUEUE_TIME_T (libcurl 8.6.0)") }
        return missing
    }

    /// The report's `tool` block: sonde, and the libcurl it ran on with its libraries.
    public static var toolInfo: ToolInfo {
        var tool = ToolInfo(libcurl: version, features: features)
        tool.libcurlPath = path
        tool.tlsLibrary = sslVersion
        tool.tlsLibraryPath = tlsLibraryPath
        tool.http2Library = http2Library
        tool.quicLibrary = quicLibrary
        tool.libcurlLacks = lacks
        tool.caBundle = caBundle
        return tool
    }

    /// The CA bundle sonde gives libcurl when no --cacert is given, nil to keep libcurl's own
    /// default (CURLINFO_CAINFO): a libcurl built elsewhere (the manylinux wheel's looks for
    /// /etc/pki/tls/certs/ca-bundle.crt) would otherwise fail every verification on Debian, with
    /// TLS verification still on but no trust store. Read once.
    public static let caBundleOverride: String? = {
        guard let easy = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(easy) }
        var text: UnsafePointer<CChar>? = nil
        if sonde_easy_getinfo_string(easy, CURLINFO_CAINFO, &text) == CURLE_OK, let text {
            let builtIn = String(cString: text)
            if builtIn.isEmpty || access(builtIn, R_OK) == 0 { return nil }
        } else {
            return nil  // libcurl before 7.84 cannot say: keep its default
        }
        return systemCABundles.first { access($0, R_OK) == 0 }
    }()

    /// Where Linux distributions keep their CA bundle (Debian first).
    static let systemCABundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                                  "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem"]

    /// The CA bundle transfers verify against without --cacert: the override, else libcurl's
    /// built-in default (nil when libcurl cannot say).
    public static var caBundle: String? {
        if let caBundleOverride { return caBundleOverride }
        initialise()
        guard let easy = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(easy) }
        var text: UnsafePointer<CChar>? = nil
        guard sonde_easy_getinfo_string(easy, CURLINFO_CAINFO, &text) == CURLE_OK, let text else { return nil }
        return String(cString: text)
    }

    /// LIBCURL_VERSION_NUM of the linked library (0xXXYYZZ).
    public static var curlVersionNumber: Int {
        initialise()
        guard let info = curl_version_info(CURLVERSION_TENTH) else { return 0 }
        return Int(info.pointee.version_num)
    }
}
