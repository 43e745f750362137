import CurlShim

/// `CURLINFO` values newer than the libcurl 7.88 headers sonde compiles against, by their numbers
/// in curl's include/curl/curl.h (`CURLINFO_OFF_T + n`; the type is in the value, so libcurl
/// checks it). Ask for one only when `available` says the running libcurl has it: an older
/// libcurl answers CURLE_UNKNOWN_OPTION, and no caller should read its 0 as a measurement.
/// Read them through `EasyHandle.offset`, whose C shim makes the variadic call.
enum ModernCurlInfo {
    /// CURLINFO_CONN_ID (libcurl 8.2.0): the id of the transfer's connection within its
    /// connection pool (one multi handle), from 0; -1 when it had none.
    case connectionID
    /// CURLINFO_QUEUE_TIME_T (libcurl 8.6.0): µs the transfer waited in libcurl's queue before it
    /// had a connection to use.
    case queueTime

    /// The CURLINFO number (curl.h: CURLINFO_OFF_T + 64, + 65).
    var info: CURLINFO {
        let index: UInt32
        switch self {
        case .connectionID: index = 64
        case .queueTime: index = 65
        }
        return CURLINFO(rawValue: UInt32(CURLINFO_OFF_T) + index)
    }

    /// LIBCURL_VERSION_NUM of the release that added it (docs/libcurl/symbols-in-versions).
    var since: Int {
        switch self {
        case .connectionID: return 0x08_02_00
        case .queueTime: return 0x08_06_00
        }
    }

    /// Whether the running libcurl has it (read once per process: the version cannot change).
    var available: Bool { Self.runningVersion >= since }

    private static let runningVersion = CurlLibrary.curlVersionNumber
}
