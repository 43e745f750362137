/// The named profiles, after Apple's Network Link Conditioner presets (the values Apple ships in
/// the preference pane, as published; docs/link.md gives the source of each). Delays are one way.
///
/// Network Link Conditioner has no jitter and no queue setting: the presets leave jitter at 0 and
/// the queue at dummynet's default (`LinkProfile.defaultQueueBytes`).
public enum LinkPresets {
    /// The presets' names, in the order the docs list them.
    public static let names = ["wifi", "dsl", "lte", "3g", "edge", "very-bad", "high-latency-dns", "100%-loss", "app-review"]

    /// The preset called `name` (exactly as listed in `names`), or nil.
    public static func preset(_ name: String) -> LinkProfile? {
        let ms: Int64 = 1_000_000
        func direction(_ rate: Int64?, _ delayMs: Int64, loss: Double = 0) -> LinkProfile.Direction {
            LinkProfile.Direction(rateBitsPerSecond: rate, delayNs: delayMs * ms, loss: loss)
        }
        let kbit: Int64 = 1000, mbit: Int64 = 1_000_000
        switch name {
        case "wifi":
            return LinkProfile(name: name, spec: name, down: direction(40 * mbit, 1), up: direction(33 * mbit, 1))
        case "dsl":
            return LinkProfile(name: name, spec: name, down: direction(2 * mbit, 5), up: direction(256 * kbit, 5))
        case "lte":
            return LinkProfile(name: name, spec: name, down: direction(50 * mbit, 50), up: direction(10 * mbit, 65))
        case "3g":
            return LinkProfile(name: name, spec: name, down: direction(780 * kbit, 100), up: direction(330 * kbit, 100))
        case "edge":
            return LinkProfile(name: name, spec: name, down: direction(240 * kbit, 400), up: direction(200 * kbit, 440))
        case "very-bad":
            return LinkProfile(name: name, spec: name, down: direction(1 * mbit, 500, loss: 0.10), up: direction(1 * mbit, 500, loss: 0.10))
        case "high-latency-dns":
            return LinkProfile(name: name, spec: name, dnsDelayNs: 3000 * ms)
        case "app-review":
            // The network an app reviewer's device sees: a Wi-Fi hop to an IPv6-only NAT64/DNS64 network.
            return LinkProfile(name: name, spec: name, down: direction(40 * mbit, 1), up: direction(33 * mbit, 1), nat64: true)
        case "100%-loss":
            return LinkProfile(name: name, spec: name, down: direction(nil, 0, loss: 1), up: direction(nil, 0, loss: 1))
        default:
            return nil
        }
    }
}
