import SondeCore
import SondeHTTP

/// One `/probe` of the tcp, dns, icmp or grpc prober under way: its clock and deadline, the series it
/// has set so far and its log, and the steps every such prober shares with blackbox_exporter
/// (`resolve`: its `chooseProtocol`; `finish`: `probe_success` and `probe_duration_seconds`).
///
/// Threading: a value owned by the one probe's task or thread.
struct BlackboxProbeRun {
    /// Monotonic start (µs).
    let started = monotonicMicroseconds()
    /// The probe's time limit (s).
    let timeout: Double
    var exposition = BlackboxExposition()
    var log: BlackboxProber.Log

    init(timeout: Double, log: BlackboxProber.Log) {
        self.timeout = timeout
        self.log = log
    }

    /// Seconds left before the deadline (never below 1 ms, so that a socket call still times out rather than blocks).
    var remaining: Double { max(0.001, timeout - elapsed) }
    /// Seconds since the start.
    var elapsed: Double { Double(monotonicMicroseconds() - started) / 1e6 }
    /// Whether the deadline has passed.
    var expired: Bool { elapsed >= timeout }

    /// blackbox's `chooseProtocol`: its three series registered at 0 first (a probe whose lookup
    /// fails has them), then the address of the preferred family (or the other one), timed.
    mutating func resolve(host: String, preferred: String, fallback: Bool) -> AddressResolver.Resolved? {
        exposition.set("probe_dns_lookup_time_seconds", 0)
        exposition.set("probe_ip_addr_hash", 0)
        exposition.set("probe_ip_protocol", 0)
        log.say("Resolving target address", "target=\(host) ip_protocol=\(preferred)")
        switch AddressResolver.resolve(host: host, preferred: preferred, fallback: fallback) {
        case .failure(let error):
            log.say("Error resolving address", "err=\"\(error.message)\"")
            return nil
        case .success(let resolved):
            log.say("Resolved target address", "target=\(host) ip=\(resolved.address)")
            exposition.set("probe_dns_lookup_time_seconds", resolved.seconds)
            exposition.set("probe_ip_protocol", Double(resolved.family))
            exposition.set("probe_ip_addr_hash", Double(BlackboxExposition.fnv32a(resolved.bytes)))
            return resolved
        }
    }

    /// The probe's end: `probe_duration_seconds` and `probe_success`, and the outcome.
    mutating func finish(success: Bool) -> BlackboxProber.Outcome {
        let duration = elapsed
        exposition.set("probe_duration_seconds", duration)
        exposition.set("probe_success", success ? 1 : 0)
        log.say(success ? "Probe succeeded" : "Probe failed", "duration_seconds=\(duration)")
        return BlackboxProber.Outcome(exposition: exposition, log: log.lines, success: success)
    }
}
