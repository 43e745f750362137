// The one-line words for a link, shared by the terminal, the HTML report and JUnit's properties.

extension LinkConditions {
    /// `3g: down 780 kbit/s +100 ms, up 330 kbit/s +100 ms (RTT 200 ms)`, then jitter, loss, a
    /// queue other than the default, DNS delay, outage and traces when set. Numbers as the report
    /// holds them.
    public var summary: String { "\(profile): " + parameters }

    /// `summary` without the profile's name: `down 780 kbit/s +100 ms, up … (RTT 200 ms, …)`.
    public var parameters: String {
        func rate(_ bits: Int64?) -> String {
            guard let bits else { return "unlimited" }
            if bits >= 1_000_000_000 && bits % 1_000_000 == 0 { return Self.number(Double(bits) / 1e9) + " Gbit/s" }
            if bits >= 1_000_000 { return Self.number(Double(bits) / 1e6) + " Mbit/s" }
            if bits >= 1000 { return Self.number(Double(bits) / 1e3) + " kbit/s" }
            return "\(bits) bit/s"
        }
        let parts = ["down " + (traceDown.map { "trace \($0)" } ?? rate(rateDownBitsPerSecond)) + " +\(Self.number(delayDownMs)) ms",
                     "up " + (traceUp.map { "trace \($0)" } ?? rate(rateUpBitsPerSecond)) + " +\(Self.number(delayUpMs)) ms"]
        var extra = ["RTT \(Self.number(delayDownMs + delayUpMs)) ms"]
        if jitterMs > 0 { extra.append("jitter ±\(Self.number(jitterMs)) ms") }
        if let lossModel {
            extra.append("loss \(lossModel)")
        } else if lossDownPercent > 0 || lossUpPercent > 0 {
            extra.append("loss \(Self.number(lossDownPercent))%/\(Self.number(lossUpPercent))%")
        }
        if let queuePackets {
            extra.append("queue \(queuePackets) packets")
        } else if queueBytes != Self.defaultQueueBytes && queueBytes > 0 {
            extra.append("queue \(queueBytes) B")
        }
        if dnsDelayMs > 0 { extra.append("DNS +\(Self.number(dnsDelayMs)) ms") }
        if nat64 { extra.append("IPv6-only: NAT64 64:ff9b::/96, DNS64 at fd53:6f6e:6465::53") }
        if let outageMs, let outagePeriodMs { extra.append("outage \(Self.number(outageMs / 1000)) s every \(Self.number(outagePeriodMs / 1000)) s") }
        return parts.joined(separator: ", ") + " (" + extra.joined(separator: ", ") + ")"
    }

    /// Up to three decimals, no trailing zeros; values from a journal may be anything.
    static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}

extension LinkCounters {
    /// `1,204 packets, 3 dropped (loss 2, queue 1), queue peak 12,000 B`; drops by the TUN devices
    /// as `TUN queue N` (the emulator fell behind) and `TUN write N`. "none dropped" only when no
    /// counter, the kernel's included, has a drop.
    public var summary: String {
        var text = "\(packetsIn + droppedByTUNQueue) packets"
        var reasons: [String] = []
        if droppedByLoss > 0 { reasons.append("loss \(droppedByLoss)") }
        if droppedByQueue > 0 { reasons.append("queue \(droppedByQueue)") }
        if droppedByOutage > 0 { reasons.append("outage \(droppedByOutage)") }
        if droppedByTUNQueue > 0 { reasons.append("TUN queue \(droppedByTUNQueue)") }
        if droppedByTUNWrite > 0 { reasons.append("TUN write \(droppedByTUNWrite)") }
        text += reasons.isEmpty ? ", none dropped" : ", \(dropped) dropped (" + reasons.joined(separator: ", ") + ")"
        if queuePeakBytes > 0 { text += ", queue peak \(queuePeakBytes) B" }
        return text
    }
}
