import SondeCore

/// One emulated link, as the emulator runs it: each direction's rate, delay, loss and trace, and
/// what both share (jitter, loss model, queue, DNS delay, outages). Made by `LinkProfileParser`
/// from `--link` text (a preset, overrides, or `key=value` pairs), which range-checks every number.
///
/// Units: durations in nanoseconds (`Int64`), rates in bits per second, loss as a fraction 0…1,
/// the queue in bytes. "Down" is toward the checked process (server → client), "up" away from it.
/// Delays are one way: a round trip costs `down.delayNs + up.delayNs`.
public struct LinkProfile: Sendable, Equatable {
    /// One direction of the link.
    public struct Direction: Sendable, Equatable {
        /// nil: not limited by a rate (a trace, or no limit at all).
        public var rateBitsPerSecond: Int64?
        public var delayNs: Int64
        /// Independent loss per packet, 0…1 (0 when `LinkProfile.lossModel` is Gilbert-Elliott).
        public var loss: Double
        /// Delivery opportunities from a mahimahi trace; when set, `rateBitsPerSecond` is nil.
        public var trace: DeliveryTrace?

        public init(rateBitsPerSecond: Int64? = nil, delayNs: Int64 = 0, loss: Double = 0, trace: DeliveryTrace? = nil) {
            self.rateBitsPerSecond = rateBitsPerSecond
            self.delayNs = delayNs
            self.loss = loss
            self.trace = trace
        }
    }

    /// How packets are lost.
    public enum LossModel: Sendable, Equatable {
        /// Each packet independently, with its direction's `loss`.
        case independent
        /// Gilbert's two-state model per direction: from Good to Bad with probability `p` per
        /// packet, back with `r`; every packet in Bad is lost, none in Good (mean loss p / (p + r)).
        case gilbert(p: Double, r: Double)
    }

    /// The link carries nothing for `durationNs` at the end of every `periodNs`, counted from the
    /// emulator's start: up for `periodNs - durationNs`, then down. `0 < durationNs < periodNs`.
    public struct Outage: Sendable, Equatable {
        public var durationNs: Int64
        public var periodNs: Int64

        public init(durationNs: Int64, periodNs: Int64) {
            self.durationNs = durationNs
            self.periodNs = periodNs
        }
    }

    /// The preset's name, or `custom`.
    public var name: String
    /// The `--link` text as written.
    public var spec: String
    public var down: Direction
    public var up: Direction
    /// Each packet's delay varies uniformly within ± this (packets are never reordered by it).
    public var jitterNs: Int64 = 0
    public var lossModel: LossModel = .independent
    /// The drop-tail queue in front of each direction's rate or trace, in bytes (≥ one 1500-byte
    /// packet); unused when `queuePackets` is set.
    public var queueBytes: Int64 = LinkProfile.defaultQueueBytes
    /// The drop-tail queue in packets (`queue=50pkt`: dummynet's slots), or nil to count bytes.
    public var queuePackets: Int64? = nil
    /// Extra delay of each DNS query (a packet to port 53), on top of `up.delayNs`.
    public var dnsDelayNs: Int64
    public var outage: Outage? = nil
    /// The seed of the loss and jitter draws (`seed=N`): the same seed, the same drops.
    public var seed: UInt64 = LinkProfile.defaultSeed
    /// IPv6 only (`nat64`): the namespace has no IPv4, and the link translates between its IPv6
    /// and the host's IPv4 (`NAT64Translator`).
    public var nat64: Bool = false

    /// The seed when a profile does not set one: fixed, so that two runs on one profile drop the
    /// same packets.
    public static let defaultSeed: UInt64 = 1

    /// The queue when a profile does not set one: dummynet's (and so Network Link Conditioner's)
    /// default of 50 slots, at 1500 bytes each.
    public static let defaultQueueBytes: Int64 = LinkConditions.defaultQueueBytes

    /// A profile with no limit, delay or loss but what is given; the other keys are set by
    /// `LinkProfileKey` (their defaults here).
    public init(name: String, spec: String, down: Direction = Direction(), up: Direction = Direction(), dnsDelayNs: Int64 = 0, nat64: Bool = false) {
        self.name = name
        self.spec = spec
        self.down = down
        self.up = up
        self.dnsDelayNs = dnsDelayNs
        self.nat64 = nat64
    }

    /// The report's form of this profile (`link` in report.json).
    public var conditions: LinkConditions {
        func ms(_ ns: Int64) -> Double { Double(ns) / 1e6 }
        let model: String? = switch lossModel {
        case .independent: nil
        case let .gilbert(p, r): "gilbert:\(Self.percentText(p)),\(Self.percentText(r))"
        }
        return LinkConditions(profile: name, spec: spec, rateDownBitsPerSecond: down.rateBitsPerSecond,
                              rateUpBitsPerSecond: up.rateBitsPerSecond, delayDownMs: ms(down.delayNs), delayUpMs: ms(up.delayNs),
                              jitterMs: ms(jitterNs), lossDownPercent: down.loss * 100, lossUpPercent: up.loss * 100,
                              lossModel: model, queueBytes: queuePackets == nil ? queueBytes : 0, queuePackets: queuePackets, dnsDelayMs: ms(dnsDelayNs),
                              outageMs: outage.map { ms($0.durationNs) }, outagePeriodMs: outage.map { ms($0.periodNs) },
                              traceDown: down.trace?.path, traceUp: up.trace?.path, nat64: nat64)
    }

    /// A fraction as the percent text the parser reads back (`0.015` → `1.5%`).
    static func percentText(_ fraction: Double) -> String {
        let percent = fraction * 100
        let rounded = (percent * 1_000_000).rounded() / 1_000_000
        return rounded == rounded.rounded() ? "\(Int64(rounded))%" : "\(rounded)%"
    }
}
