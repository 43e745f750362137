/// One phase of a transaction, and the one table of what each view makes of it: the report's key,
/// the terminal's letter and colour, the HTML's colour, the HAR timing slot, blackbox_exporter's
/// `phase` label (Prometheus's `phase` label is the key). Every
/// view reads its phases from here; adding a phase is a case here and its property on `Phases`.
public enum Phase: String, CaseIterable, Sendable {
    case dns, connect, tls, send, wait, receive, total

    /// The phases that follow one another on a transaction's timeline (all but `total`).
    public static let timeline: [Phase] = allCases.filter { $0 != .total }

    /// The report's key for this phase (`Phases`, thresholds, `sonde_probe_phase_seconds`).
    public var name: String { rawValue }

    var key: StaticString {
        switch self {
        case .dns: "dns"
        case .connect: "connect"
        case .tls: "tls"
        case .send: "send"
        case .wait: "wait"
        case .receive: "receive"
        case .total: "total"
        }
    }

    /// How the terminal and the HTML draw this phase on a timeline; nil for `total`.
    public var style: (letter: Character, ansiColor: String, htmlColor: String)? {
        switch self {
        case .dns: ("d", "36", "#14b8a6")
        case .connect: ("c", "33", "#f59e0b")
        case .tls: ("t", "35", "#a855f7")
        case .send: ("s", "34", "#3b82f6")
        case .wait: ("w", "32", "#22c55e")
        case .receive: ("r", "31", "#ef4444")
        case .total: nil
        }
    }

    /// The `phase` label of blackbox_exporter's `probe_http_duration_seconds` this phase adds to
    /// (send and wait both to `processing`); nil for `total`.
    public var blackboxPhase: String? {
        switch self {
        case .dns: "resolve"
        case .connect: "connect"
        case .tls: "tls"
        case .send, .wait: "processing"
        case .receive: "transfer"
        case .total: nil
        }
    }

    /// The HAR 1.2 `timings` slot this phase fills (`tls` is HAR's `ssl`); nil for `total`. HAR's
    /// `connect` includes `ssl`, which the HAR writer adds.
    public var harSlot: StaticString? {
        switch self {
        case .dns: "dns"
        case .connect: "connect"
        case .tls: "ssl"
        case .send: "send"
        case .wait: "wait"
        case .receive: "receive"
        case .total: nil
        }
    }

    /// blackbox_exporter's phase labels, sorted as it registers them.
    public static let blackboxPhases: [String] = Array(Set(allCases.compactMap(\.blackboxPhase))).sorted()

    /// The phases whose time blackbox_exporter's `phase` label `label` sums (`blackboxPhase`).
    public static func phases(inBlackboxPhase label: String) -> [Phase] { allCases.filter { $0.blackboxPhase == label } }
}
