/// sonde's own connection queue for `--parallel` runs: while a hop is setting up a connection to
/// an origin that may multiplex (HTTP/2 over TLS, h2c with prior knowledge), further hops to that
/// origin wait here, not inside libcurl, and go once that connection is ready, to multiplex on it.
///
/// libcurl's CURLOPT_PIPEWAIT makes the same wait inside libcurl, where it is invisible: libcurl
/// restarts its phase timers when a transfer leaves its queue but not its total, so the wait
/// landed in `receive`; `--timeout` counted it; and on a cleartext HTTP/1.1 server the transfers
/// waited for the whole first response, which is when libcurl learns that such a connection
/// cannot multiplex. Here the wait is sonde's: measured (`TransactionMetrics.queue`), outside
/// every hop's timeout, and over as soon as the connection is ready (its request about to leave,
/// so TLS and ALPN are done).
///
/// Rules, per origin:
/// - once a ready connection negotiated HTTP/1.1 (`single`), hops to the origin never wait: each
///   needs a connection of its own;
/// - otherwise a hop waits while another hop to the origin is setting up its connection (it
///   started and its request has not left yet); a hop on a live pooled connection is ready within
///   libcurl's first `perform`, so the wait costs microseconds; a hop whose connection was closed
///   (a server's GOAWAY after N requests) sets up the next one, and the others wait for it;
/// - the hops that waited are handed back all at once when the setting-up hop is ready (they then
///   multiplex on its connection) or ended without a connection (they then try on their own, so
///   a dead server costs each of them its own timeout, not one after another); they start
///   without entering the gate again.
///
/// Threading: confined to the engine thread, like `ProbeRunner`.
struct OriginGate<Waiter> {
    /// What the origin's connections do, once one was ready.
    private var singleOrigins: Set<String> = []
    /// Hops setting up a connection, by identity, with their origin.
    private var settingUp: [ObjectIdentifier: String] = [:]
    private var waiting: [String: [Waiter]] = [:]

    /// Whether the hop `id` is setting up a connection (so `ready` or `ended` concern it).
    func isSettingUp(_ id: ObjectIdentifier) -> Bool { settingUp[id] != nil }

    /// The hops setting up a connection: check each for readiness after every `perform`.
    var settingUpIDs: [ObjectIdentifier] { Array(settingUp.keys) }

    /// Lets a hop to `origin` start (true: it starts now; unless the origin is `single` it is now
    /// setting up, until `ready` or `ended`) or holds it (false: `waiter` is kept).
    mutating func admit(_ waiter: Waiter, id: ObjectIdentifier, origin: String) -> Bool {
        if singleOrigins.contains(origin) { return true }
        if settingUp.values.contains(origin) {
            waiting[origin, default: []].append(waiter)
            return false
        }
        settingUp[id] = origin
        return true
    }

    /// The hop `id` has its connection ready (`multiplexed`: it negotiated HTTP/2 or HTTP/3);
    /// returns the hops that waited for it when no other hop to the origin is setting up.
    mutating func ready(_ id: ObjectIdentifier, multiplexed: Bool) -> [Waiter] {
        guard let origin = settingUp.removeValue(forKey: id) else { return [] }
        if !multiplexed { singleOrigins.insert(origin) }
        return releasable(origin)
    }

    /// The hop `id` ended (failed, or was stopped) before its connection was ready; returns the
    /// hops that waited for it, to start on their own.
    mutating func ended(_ id: ObjectIdentifier) -> [Waiter] {
        guard let origin = settingUp.removeValue(forKey: id) else { return [] }
        return releasable(origin)
    }

    private mutating func releasable(_ origin: String) -> [Waiter] {
        guard !settingUp.values.contains(origin) else { return [] }
        return waiting.removeValue(forKey: origin) ?? []
    }
}
