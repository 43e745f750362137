import SondeCore

/// One direction of the emulated link, as a pure value driven by the caller's clock: packets
/// `arrive` at a time, `nextDeadline` says when something is next due, `deliver(until:)` hands
/// over every packet due by then, in order. No I/O, no clock of its own, so tests drive it with
/// made-up times. Not thread-safe: one owner (the emulator thread, or a test).
///
/// Per packet, on arrival (mahimahi's `mm-loss`, `mm-link`, `mm-delay`, in that order, plus outages):
/// 1. during an outage it is dropped (`droppedByOutage`); 2. the loss process may drop it
///    (`droppedByLoss`); 3. the bottleneck takes it or drops it when the queue is full (`droppedByQueue`):
///    - a rate: queued bytes are `(busyUntil − now) × rate`; drop-tail if those plus the packet
///      exceed the queue (or, for a queue counted in packets, if the packets not yet gone through
///      the bottleneck fill it), else `busyUntil = max(now, busyUntil) + length / rate`, which is
///      when it leaves the bottleneck;
///    - a trace: it waits in a byte-bounded FIFO until delivery opportunities (each up to
///      1500 bytes, a packet may span several) carry it out;
///    - neither: it leaves at once;
/// 4. it is delivered at departure + delay + jitter (uniform in ±jitter, but never before the
///    previous packet: no reordering) + the DNS delay for a DNS query (which travel in a line of
///    their own, so a held-back query delays nothing else). A packet due during an outage is dropped.
///
/// Units: times in nanoseconds on the caller's monotonic clock, lengths in bytes.
public struct DirectionEmulator<Payload> {
    private struct Flight {
        var deliverAt: Int64
        var length: Int
        var payload: Payload
    }

    private struct Waiting {
        var length: Int
        /// Bytes still to be carried by delivery opportunities.
        var remaining: Int64
        var isDNS: Bool
        var payload: Payload
    }

    public let settings: LinkProfile.Direction
    private let jitterNs: Int64
    private let queueBytes: Int64
    /// The queue in packets (dummynet's slots), or nil when `queueBytes` bounds it.
    private let queuePackets: Int64?
    private let dnsDelayNs: Int64
    private let outage: LinkProfile.Outage?
    private let start: Int64
    /// The most bytes in the delay lines at once: a bound on memory whatever the delay and the
    /// offered load (beyond it packets are dropped as by a full queue).
    public static var maxInFlightBytes: Int64 { 64 * 1024 * 1024 }

    private var loss: LossProcess
    private var random: SeededGenerator
    private var busyUntil: Int64
    private var line = PacketRing<Flight>()
    private var dnsLine = PacketRing<Flight>()
    private var lastDeliverAt: Int64 = .min
    private var lastDNSDeliverAt: Int64 = .min
    private var inFlightBytes: Int64 = 0
    private var waiting = PacketRing<Waiting>()
    private var waitingBytes: Int64 = 0
    /// With a rate and a queue in packets: when each packet still in the bottleneck leaves it.
    private var departures = PacketRing<Int64>()
    /// The next delivery opportunity: its index in the trace and the start of its period (ns after `start`).
    private var traceIndex = 0
    private var tracePeriodBase: Int64 = 0

    public private(set) var counters = LinkCounters()

    /// - Parameters:
    ///   - direction: the rate, delay, loss and trace of this direction.
    ///   - profile: the shared settings (jitter, loss model, queue, DNS delay, outage).
    ///   - applyDNSDelay: whether this direction holds back DNS queries (the uplink).
    ///   - seed: the loss and jitter draws' seed.
    ///   - start: the caller's clock when the link comes up (outages and traces count from it).
    public init(direction: LinkProfile.Direction, profile: LinkProfile, applyDNSDelay: Bool, seed: UInt64, start: Int64) {
        settings = direction
        jitterNs = profile.jitterNs
        queueBytes = profile.queueBytes
        queuePackets = profile.queuePackets
        dnsDelayNs = applyDNSDelay ? profile.dnsDelayNs : 0
        outage = profile.outage
        self.start = start
        busyUntil = start
        loss = LossProcess(model: profile.lossModel, probability: direction.loss, seed: seed)
        random = SeededGenerator(seed: seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// Whether the link is down at `time` (an outage).
    public func inOutage(_ time: Int64) -> Bool {
        guard let outage, time >= start else { return false }
        let phase = (time - start) % outage.periodNs
        return phase >= outage.periodNs - outage.durationNs
    }

    /// The bytes the bottleneck holds at `now` (queued, not yet sent).
    public func queuedBytes(at now: Int64) -> Int64 {
        if settings.trace != nil { return waitingBytes }
        guard let rate = settings.rateBitsPerSecond, busyUntil > now else { return 0 }
        return Int64((Double(busyUntil - now) * Double(rate) / 8e9).rounded(.up))
    }

    /// A packet of `length` bytes arrives at `now` (never earlier than a previous call's `now`).
    public mutating func arrive(_ payload: Payload, length: Int, isDNS: Bool = false, at now: Int64) {
        counters.packetsIn += 1
        counters.bytesIn += Int64(length)
        if inOutage(now) {
            counters.droppedByOutage += 1
            return
        }
        if loss.dropsNext() {
            counters.droppedByLoss += 1
            return
        }
        if let trace = settings.trace {
            serveTrace(until: now)
            if waiting.isEmpty { skipOpportunities(before: now, trace: trace) }
            guard fits(length, queuedBytes: waitingBytes, queuedPackets: Int64(waiting.count)) else {
                counters.droppedByQueue += 1
                return
            }
            waiting.append(Waiting(length: length, remaining: Int64(length), isDNS: isDNS, payload: payload))
            waitingBytes += Int64(length)
            counters.queuePeakBytes = max(counters.queuePeakBytes, waitingBytes)
            return
        }
        var departure = now
        if let rate = settings.rateBitsPerSecond {
            let queued = queuedBytes(at: now)
            if queuePackets != nil {
                while let first = departures.first, first <= now { departures.removeFirst() }
            }
            guard fits(length, queuedBytes: queued, queuedPackets: Int64(departures.count)) else {
                counters.droppedByQueue += 1
                return
            }
            busyUntil = max(now, busyUntil) + Int64((Double(length) * 8e9 / Double(rate)).rounded())
            departure = busyUntil
            if queuePackets != nil { departures.append(departure) }
            counters.queuePeakBytes = max(counters.queuePeakBytes, queued + Int64(length))
        }
        schedule(payload, length: length, isDNS: isDNS, departure: departure)
    }

    /// Whether a packet of `length` bytes fits behind what the queue holds (drop-tail).
    private func fits(_ length: Int, queuedBytes: Int64, queuedPackets: Int64) -> Bool {
        if let queuePackets { return queuedPackets < queuePackets }
        return queuedBytes + Int64(length) <= queueBytes
    }

    /// When something is next due (a delivery, or a trace opportunity with packets waiting), or nil.
    public var nextDeadline: Int64? {
        var next = line.first?.deliverAt
        if let dns = dnsLine.first?.deliverAt { next = min(next ?? dns, dns) }
        if !waiting.isEmpty, let trace = settings.trace {
            let opportunity = opportunityTime(trace)
            next = min(next ?? opportunity, opportunity)
        }
        return next
    }

    /// Hands `body` the packets due at or before `now`, in delivery order, at most `limit` of them;
    /// drops those due during an outage (they do not count toward `limit`). Returns whether more
    /// are due by `now` (only possible when `limit` stopped it).
    @discardableResult
    public mutating func deliver(until now: Int64, limit: Int = .max, _ body: (Payload) -> Void) -> Bool {
        serveTrace(until: now)
        var handed = 0
        while true {
            let main = line.first?.deliverAt ?? .max
            let dns = dnsLine.first?.deliverAt ?? .max
            let due = min(main, dns)
            guard due <= now else { return false }
            guard handed < limit else { return true }
            let flight = main <= dns ? line.removeFirst() : dnsLine.removeFirst()
            guard let flight else { return false }
            inFlightBytes -= Int64(flight.length)
            if inOutage(flight.deliverAt) {
                counters.droppedByOutage += 1
                continue
            }
            counters.packetsDelivered += 1
            counters.bytesDelivered += Int64(flight.length)
            handed += 1
            body(flight.payload)
        }
    }

    // MARK: Delay lines

    private mutating func schedule(_ payload: Payload, length: Int, isDNS: Bool, departure: Int64) {
        guard inFlightBytes + Int64(length) <= Self.maxInFlightBytes else {
            counters.droppedByQueue += 1
            return
        }
        var deliverAt = departure + settings.delayNs
        if jitterNs > 0 {
            let draw = Int64(((random.unit() * 2 - 1) * Double(jitterNs)).rounded())
            deliverAt = max(departure, deliverAt + draw)
        }
        inFlightBytes += Int64(length)
        if isDNS && dnsDelayNs > 0 {
            deliverAt = max(deliverAt + dnsDelayNs, lastDNSDeliverAt)
            lastDNSDeliverAt = deliverAt
            dnsLine.append(Flight(deliverAt: deliverAt, length: length, payload: payload))
        } else {
            deliverAt = max(deliverAt, lastDeliverAt)
            lastDeliverAt = deliverAt
            line.append(Flight(deliverAt: deliverAt, length: length, payload: payload))
        }
    }

    // MARK: Trace

    private func opportunityTime(_ trace: DeliveryTrace) -> Int64 {
        start + tracePeriodBase + trace.timesMs[traceIndex] * 1_000_000
    }

    private mutating func nextOpportunity(_ trace: DeliveryTrace) {
        traceIndex += 1
        if traceIndex == trace.timesMs.count {
            traceIndex = 0
            tracePeriodBase += trace.periodMs * 1_000_000
        }
    }

    /// With nothing waiting, unused opportunities before `now` are gone: move to the first at or after it.
    private mutating func skipOpportunities(before now: Int64, trace: DeliveryTrace) {
        guard opportunityTime(trace) < now else { return }
        let periodNs = trace.periodMs * 1_000_000
        let elapsed = now - start
        tracePeriodBase = (elapsed / periodNs) * periodNs
        let offsetMs = (elapsed - tracePeriodBase + 999_999) / 1_000_000
        // The first time ≥ offsetMs in this period (binary search), else the next period's first.
        var low = 0, high = trace.timesMs.count
        while low < high {
            let middle = (low + high) / 2
            if trace.timesMs[middle] < offsetMs { low = middle + 1 } else { high = middle }
        }
        if low == trace.timesMs.count {
            traceIndex = 0
            tracePeriodBase += periodNs
        } else {
            traceIndex = low
        }
    }

    /// Every opportunity at or before `now` carries up to 1500 bytes of the waiting packets.
    private mutating func serveTrace(until now: Int64) {
        guard let trace = settings.trace else { return }
        while !waiting.isEmpty {
            let opportunity = opportunityTime(trace)
            guard opportunity <= now else { return }
            var budget = DeliveryTrace.bytesPerOpportunity
            while budget > 0, var head = waiting.first {
                if head.remaining <= budget {
                    budget -= head.remaining
                    waiting.removeFirst()
                    waitingBytes -= Int64(head.length)
                    schedule(head.payload, length: head.length, isDNS: head.isDNS, departure: opportunity)
                } else {
                    head.remaining -= budget
                    budget = 0
                    waiting.replaceFirst(head)
                }
            }
            nextOpportunity(trace)
        }
    }
}
