#if canImport(Glibc)
import Glibc
#endif

/// The bounds that keep `sonde serve` answering under load or attack, whoever connects: any local
/// client can open connections before authentication runs (it needs the request's headers).
///
/// - A connection that has not sent a whole request head within `requestTimeout` of opening (or
///   of its last answer) is closed: a header-read and idle timeout in one (Hummingbird's idle
///   timer, which trickled header bytes do not reset).
/// - At most `maxConnections` are open, and at most `maxConnectionsPerClient` from one client
///   address; past either, the oldest connection that is not being answered gives way to the new
///   one (`ConnectionTable`: silent ones first), so `/-/healthy` and `/metrics` find room beside a
///   slowloris from any address, their own included.
/// - At most `maxProbes` `/probe` calls run at once; one more is answered 503 at once, as a
///   blackbox_exporter behind a concurrency limit answers.
///
/// Both maxima are also kept inside the descriptor limit (`RLIMIT_NOFILE`), which `raisedFileLimit`
/// first raises to its hard limit (a systemd service starts with a soft limit of 1,024): a
/// connection holds one descriptor, a probe about four more (its connection, libcurl's wake-up
/// pipe and resolver), and 128 stay for the scheduled checks, history and run files.
public struct ServeLimits: Equatable, Sendable, CustomStringConvertible {
    public var maxConnections: Int
    /// At most this many from one client address: half of `maxConnections`.
    public var maxConnectionsPerClient: Int { max(4, maxConnections / 2) }
    public var maxProbes: Int
    /// Seconds.
    public var requestTimeout: Double
    /// The soft descriptor limit the maxima were fitted in.
    public var fileLimit: Int

    /// Above Prometheus's 512: silent connections that fill the cap make every scrape wait in the
    /// backlog until `requestTimeout` frees them, so the cap is set where descriptors, not
    /// connections, run out first (1,100 silent connections from one local client are then
    /// accepted, and `/-/healthy` answers beside them).
    public static let defaultMaxConnections = 10_000
    public static let defaultMaxProbes = 100
    public static let defaultRequestTimeout = 10.0
    static let reservedDescriptors = 128
    static let descriptorsPerProbe = 4

    /// The maxima asked for, lowered to fit `fileLimit` descriptors (to no fewer than 4).
    public init(maxConnections: Int = defaultMaxConnections, maxProbes: Int = defaultMaxProbes,
                requestTimeout: Double = defaultRequestTimeout, fileLimit: Int) {
        let spare = max(0, fileLimit - Self.reservedDescriptors)
        self.maxConnections = min(maxConnections, max(4, spare / 2))
        self.maxProbes = min(maxProbes, max(4, (spare - self.maxConnections) / Self.descriptorsPerProbe))
        self.requestTimeout = requestTimeout
        self.fileLimit = fileLimit
    }

    public var description: String {
        "\(maxConnections) connections (\(maxConnectionsPerClient) per client address), \(maxProbes) concurrent probes, \(Int(requestTimeout)) s to send a request, \(fileLimit) descriptors"
    }

    /// Raises this process's soft `RLIMIT_NOFILE` to its hard limit; returns the soft limit now in
    /// force (capped at 1,048,576 for the arithmetic; unchanged when it cannot be raised).
    public static func raisedFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, 1 << 20))
    }
}
