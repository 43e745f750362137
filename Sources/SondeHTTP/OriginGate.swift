/// sonde's own connection queue for `--parallel` runs: while the first connection to an origin
/// that may multiplex (HTTP/2 over TLS, h2c with prior knowledge) is being set up, further hops
/// to that origin wait here, not inside libcurl.
///
/// libcurl's CURLOPT_PIPEWAIT makes the same wait inside libcurl, where it is invisible: libcurl
/// restarts its phase timers when a transfer leaves its queue but not its total, so the wait
/// landed in `receive`; `--timeout` counted it; and on a cleartext HTTP/1.1 server the transfers
/// waited for the whole first response, which is when libcurl learns that such a connection
/// cannot multiplex. Here the wait is sonde's: measured (`TransactionMetrics.queue`), outside
/// every hop's timeout, and over as soon as the first connection is ready (its request about
/// to leave, so TLS and ALPN are done); each waiting hop then multiplexes on that connection or,
/// on a server that does not multiplex, opens its own at once.
///
/// Invariants: an origin has at most one pioneer (the hop setting up its first connection);
/// waiters exist only for an origin with a pioneer; once an origin is established, hops to it
/// start at once.
///
/// Threading: confined to the engine thread, like `ProbeRunner`.
struct OriginGate<Waiter> {
    /// Origin of each pioneer in flight, by the pioneer's identity.
    private var pioneers: [ObjectIdentifier: String] = [:]
    private var connecting: Set<String> = []
    private var established: Set<String> = []
    private var waiting: [String: [Waiter]] = [:]

    /// Whether any pioneer is still setting up its connection.
    var hasPioneers: Bool { !pioneers.isEmpty }

    /// Lets a hop to `origin` start (true: it starts now, as the origin's pioneer or on an
    /// established origin) or holds it (false: `waiter` is kept until the pioneer is done).
    mutating func admit(_ waiter: Waiter, id: ObjectIdentifier, origin: String) -> Bool {
        if established.contains(origin) { return true }
        if connecting.contains(origin) {
            waiting[origin, default: []].append(waiter)
            return false
        }
        connecting.insert(origin)
        pioneers[id] = origin
        return true
    }

    /// The pioneers, by identity: check each for a ready connection with `connectionReady`.
    var pioneerIDs: Dictionary<ObjectIdentifier, String>.Keys { pioneers.keys }

    /// The pioneer `id` has its connection ready: its origin is established, and the hops that
    /// waited for it are returned, to start now.
    mutating func connectionReady(pioneer id: ObjectIdentifier) -> [Waiter] {
        guard let origin = pioneers.removeValue(forKey: id) else { return [] }
        connecting.remove(origin)
        established.insert(origin)
        return waiting.removeValue(forKey: origin) ?? []
    }

    /// The pioneer `id` ended (failed, or was stopped) before its connection was ready: the
    /// origin is unknown again, and its waiters are returned, to start now, each on its own
    /// (none of them becomes a pioneer, so a dead server costs one timeout, not one per task).
    mutating func pioneerEnded(_ id: ObjectIdentifier) -> [Waiter] {
        guard let origin = pioneers.removeValue(forKey: id) else { return [] }
        connecting.remove(origin)
        return waiting.removeValue(forKey: origin) ?? []
    }
}
