/// The emulated link a run, a check or a transaction crossed (`link` in report.json), as the
/// profile set it: every parameter, one way each (so RTT = `delayDownMs + delayUpMs`, as Apple's
/// Network Link Conditioner and hardware emulators count it). Built by SondeLink from a parsed
/// `--link` profile; a value type with no behaviour.
///
/// Units: rates in bits per second (nil: not limited), durations in milliseconds, loss in percent
/// (0…100), the queue in bytes or packets. Invariants (the parser's checks): `outageMs < outagePeriodMs`
/// when both are set, and neither is set alone; a direction with a trace has no rate.
public struct LinkConditions: Sendable, Equatable {
    /// The preset's name (`lte`, `3g`, …) or `custom`.
    public var profile: String
    /// The `--link` text as written.
    public var spec: String
    public var rateDownBitsPerSecond: Int64?
    public var rateUpBitsPerSecond: Int64?
    public var delayDownMs: Double
    public var delayUpMs: Double
    /// Each packet's delay varies uniformly by up to ± this much (never reordering packets).
    public var jitterMs: Double
    /// Independent (Bernoulli) loss per packet, percent; 0 when `lossModel` is set.
    public var lossDownPercent: Double
    public var lossUpPercent: Double
    /// `gilbert:p,r` (bursty loss, each direction its own chain), nil for independent loss.
    public var lossModel: String?
    /// The drop-tail queue in front of each direction's rate or trace, in bytes; 0 when it is
    /// counted in packets (`queuePackets`).
    public var queueBytes: Int64
    /// The drop-tail queue in packets (`queue=50pkt`, as dummynet counts its slots); nil when it
    /// is counted in bytes.
    public var queuePackets: Int64?
    /// The queue when a profile sets none, in bytes (`LinkProfile.defaultQueueBytes`).
    public static let defaultQueueBytes: Int64 = 75_000
    /// Extra delay of each DNS query (UDP or TCP to port 53), on top of `delayUpMs`.
    public var dnsDelayMs: Double
    /// The link carries nothing for `outageMs` at the end of every `outagePeriodMs`.
    public var outageMs: Double?
    public var outagePeriodMs: Double?
    /// The mahimahi trace files that set each direction's delivery opportunities.
    public var traceDown: String?
    public var traceUp: String?
    /// IPv6 only: the check's namespace had no IPv4 and reached IPv4 through NAT64 (64:ff9b::/96)
    /// and a DNS64 resolver.
    public var nat64: Bool

    public init(profile: String, spec: String, rateDownBitsPerSecond: Int64? = nil, rateUpBitsPerSecond: Int64? = nil,
                delayDownMs: Double = 0, delayUpMs: Double = 0, jitterMs: Double = 0, lossDownPercent: Double = 0,
                lossUpPercent: Double = 0, lossModel: String? = nil, queueBytes: Int64 = 0, queuePackets: Int64? = nil, dnsDelayMs: Double = 0,
                outageMs: Double? = nil, outagePeriodMs: Double? = nil, traceDown: String? = nil, traceUp: String? = nil, nat64: Bool = false) {
        self.profile = profile
        self.spec = spec
        self.rateDownBitsPerSecond = rateDownBitsPerSecond
        self.rateUpBitsPerSecond = rateUpBitsPerSecond
        self.delayDownMs = delayDownMs
        self.delayUpMs = delayUpMs
        self.jitterMs = jitterMs
        self.lossDownPercent = lossDownPercent
        self.lossUpPercent = lossUpPercent
        self.lossModel = lossModel
        self.queueBytes = queueBytes
        self.queuePackets = queuePackets
        self.dnsDelayMs = dnsDelayMs
        self.outageMs = outageMs
        self.outagePeriodMs = outagePeriodMs
        self.traceDown = traceDown
        self.traceUp = traceUp
        self.nat64 = nat64
    }
}

extension LinkConditions: FieldModel {
    public static let blank = LinkConditions(profile: "", spec: "")

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("profile", &profile, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("spec", &spec, .required)
        try v.visit("rateDownBitsPerSecond", &rateDownBitsPerSecond, .count)
        try v.visit("rateUpBitsPerSecond", &rateUpBitsPerSecond, .count)
        try v.visit("delayDownMs", &delayDownMs, .requiredMilliseconds)
        try v.visit("delayUpMs", &delayUpMs, .requiredMilliseconds)
        try v.visit("jitterMs", &jitterMs, .milliseconds)
        try v.visit("lossDownPercent", &lossDownPercent, FieldRule(unit: .nonNegative))
        try v.visit("lossUpPercent", &lossUpPercent, FieldRule(unit: .nonNegative))
        try v.visit("lossModel", &lossModel, .field)
        try v.visit("queueBytes", &queueBytes, .count)
        try v.visit("queuePackets", &queuePackets, .count)
        try v.visit("dnsDelayMs", &dnsDelayMs, .milliseconds)
        try v.visit("outageMs", &outageMs, .milliseconds)
        try v.visit("outagePeriodMs", &outagePeriodMs, .milliseconds)
        try v.visit("traceDown", &traceDown, .field)
        try v.visit("traceUp", &traceUp, .field)
        try v.visit("nat64", &nat64, .field)
    }
}
