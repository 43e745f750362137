/// One emulated link as a run or a check used it (`run.link`, `checks[].link` in report.json):
/// the conditions it imposed, the seed of its loss and jitter draws, and what the emulator did to
/// each direction's packets over the link's life (absent until the link stopped: a run killed
/// mid-way keeps only the conditions).
///
/// Invariant: `down` and `up` are both set or both nil. Counters cover every connection of the
/// run or check that crossed the link (the emulator counts per direction, not per connection).
public struct LinkUse: Sendable, Equatable {
    public var conditions: LinkConditions
    /// The seed of the loss and jitter draws: the same seed gives the same drops.
    public var seed: Int64
    /// Toward the checked process.
    public var down: LinkCounters?
    /// From the checked process.
    public var up: LinkCounters?
    /// What stopped the emulator early, if anything did (its counters then end there).
    public var problem: String?
    /// The counters per connection (TCP connection or UDP flow), in the order each first crossed.
    public var connections: [LinkConnectionCounters]?
    /// When the emulator started (its outages and traces count from here) and stopped; nil until
    /// the link stopped.
    public var startedAt: Timestamp?
    public var stoppedAt: Timestamp?
    /// The windows in which the link's outages (`outage=`) held it down, the first
    /// `LinkOutageWindow.maxListed` of them; nil without outages or before the link stopped.
    public var outages: [LinkOutageWindow]?
    /// Outage windows beyond those listed.
    public var outagesOmitted: Int64?

    public init(conditions: LinkConditions, seed: Int64, down: LinkCounters? = nil, up: LinkCounters? = nil, problem: String? = nil) {
        self.conditions = conditions
        self.seed = seed
        self.down = down
        self.up = up
        self.problem = problem
    }

    /// Sets `outages` and `outagesOmitted` from the conditions' outage and `startedAt`…`stoppedAt`.
    public mutating func listOutages() {
        guard let outageMs = conditions.outageMs, let periodMs = conditions.outagePeriodMs, let startedAt, let stoppedAt else { return }
        let windows = LinkOutageWindow.windows(start: startedAt, stop: stoppedAt, durationMs: outageMs, periodMs: periodMs)
        outages = windows.listed
        outagesOmitted = windows.omitted > 0 ? windows.omitted : nil
    }

    /// Packets dropped in both directions for any reason, nil before the counters are known.
    public var dropped: Int64? {
        guard let down, let up else { return nil }
        return down.dropped + up.dropped
    }
}

extension LinkUse: FieldModel {
    public static let blank = LinkUse(conditions: .blank, seed: 0)
    public static var schemaName: String? { "linkUse" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("conditions", &conditions, .required)
        try v.visit("seed", &seed, .required)
        try v.visit("down", &down, .omittedWhenNil)
        try v.visit("up", &up, .omittedWhenNil)
        try v.visit("problem", &problem, .omittedWhenNil)
        try v.visit("connections", &connections, .omittedWhenNil)
        try v.visit("startedAt", &startedAt, .omittedWhenNil)
        try v.visit("stoppedAt", &stoppedAt, .omittedWhenNil)
        try v.visit("outages", &outages, .omittedWhenNil)
        try v.visit("outagesOmitted", &outagesOmitted, FieldRule(omitsNil: true, unit: .count))
    }
}
