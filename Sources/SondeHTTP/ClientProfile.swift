import SondeCore

/// The HTTP client whose requests a probe imitates (`--client`): the headers that stack adds to
/// every request and whether it decodes the body. URLSession sends `Accept-Encoding: gzip,
/// deflate, br` and decodes transparently; OkHttp sends `gzip`; `plain` sends neither (curl's
/// default, and what a benchmark against curl uses).
public enum ClientProfile: String, Sendable, CaseIterable {
    case urlsession, okhttp, plain

    /// The `Accept-Encoding` this client sends (libcurl then decodes the body:
    /// CURLOPT_ACCEPT_ENCODING); nil for none.
    public var acceptEncoding: String? {
        switch self {
        case .urlsession: return "gzip, deflate, br"
        case .okhttp: return "gzip"
        case .plain: return nil
        }
    }

    /// The headers the report shows this client adding to every request.
    public var addedHeaders: [HeaderField] {
        acceptEncoding.map { [HeaderField(name: "Accept-Encoding", value: $0)] } ?? []
    }
}

/// How far a decoded body may grow (a decompression bomb is cut there): at most `ratio` times
/// its bytes on the wire, and at most `maxBytes` in all. Checked once the decoded body passes
/// `ratioFloor` bytes, so that small, well-compressed bodies (a 2 KiB JSON of repeated keys) pass.
///
/// libcurl counts the wire bytes of a read (CURLINFO_SIZE_DOWNLOAD_T) only after its decoded
/// bytes were written, so while a read is decoded the count lags by that read: measured with
/// libcurl 8.23, a 19 KB gzip bomb read 0 bytes on the wire at 1 MB decoded. `readAllowance` is
/// added to the wire count for the read in progress.
public struct DecodedBodyLimit: Sendable, Equatable {
    public var ratio: Int64 = 64
    public var maxBytes: Int64 = 1 << 30
    public var ratioFloor: Int64 = 1 << 20
    public var readAllowance: Int64 = 1 << 16

    public init() {}

    /// Whether `decoded` bytes from `wire` bytes (as libcurl counts them so far) go past the limit.
    public func isExceeded(decoded: Int64, wire: Int64) -> Bool {
        if decoded > maxBytes { return true }
        return decoded > ratioFloor && decoded / (max(wire, 0) + readAllowance) >= ratio
    }
}
