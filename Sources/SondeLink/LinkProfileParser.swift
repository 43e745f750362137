import SondeCore

/// Reads `--link` text into a `LinkProfile`: a preset name (`lte`), a preset followed by
/// overrides (`lte,loss-down=2%`), or `key=value` pairs alone (`rate-down=8Mbit,delay-down=40ms`,
/// every key optional; unset keys mean no limit, no delay, no loss). Durations and sizes go
/// through `Quantity`, rates through `Quantity.rate`; every number is range-checked and a problem
/// names its key (`SettingProblem`).
///
/// `loss-model=gilbert:p,r` holds a comma of its own: a piece without `=` right after it is its
/// second number. A key given twice is refused.
public enum LinkProfileParser {
    /// The keys' names, in the order the docs list them (`LinkProfileKey.all`).
    public static var keys: [String] { LinkProfileKey.allNames }

    /// Bounds of every number (inclusive).
    public static let minRate: Int64 = 1000
    public static let maxRate: Int64 = 100_000_000_000
    public static let maxDelayNs: Int64 = 60_000_000_000
    public static let maxJitterNs: Int64 = 10_000_000_000
    public static let minQueue: Int64 = 1500
    public static let maxQueue: Int64 = 1 << 30
    /// The most packets a queue counted in packets may hold (dummynet's slots; at 1500 bytes each, 150 MB).
    public static let maxQueuePackets: Int64 = 100_000
    public static let maxOutagePeriodNs: Int64 = 86_400_000_000_000
    /// The longest `--link` text read.
    public static let maxSpecLength = 4096

    /// The profile `text` describes. - Parameter readTrace: reads a trace file (tests pass text).
    public static func parse(_ text: String,
                             readTrace: LinkProfileKey.ReadTrace = DeliveryTrace.read) throws(SettingProblem) -> LinkProfile {
        let spec = text.trimmingWhitespace()
        guard !spec.isEmpty else { throw SettingProblem(key: "link", "is empty; name a preset (\(LinkPresets.names.joined(separator: ", "))) or give key=value pairs") }
        guard spec.utf8.count <= maxSpecLength else { throw SettingProblem(key: "link", "is longer than \(maxSpecLength) characters") }
        let pairs = try Self.pairs(spec)
        var profile = LinkProfile(name: "custom", spec: spec)
        var start = 0
        if let first = pairs.first, first.key == nil, LinkProfileKey.named(first.value.lowercased())?.form != .word {
            guard let preset = LinkPresets.preset(first.value) else {
                throw SettingProblem(key: "link", "\"\(first.value)\" is neither a preset (\(LinkPresets.names.joined(separator: ", "))), "
                                     + "a word (\(wordNames)) nor key=value")
            }
            profile = preset
            profile.spec = spec
            start = 1
        }
        var seen: Set<String> = []
        for pair in pairs[start...] {
            let name = (pair.key ?? pair.value).lowercased()
            guard let key = LinkProfileKey.named(name) else {
                if pair.key == nil {
                    throw SettingProblem(key: "link", "\"\(pair.value)\" is not key=value or a word (\(wordNames)); a preset name may only come first")
                }
                throw SettingProblem(key: "link", "unknown key \"\(name)\"; known: \(keys.joined(separator: ", "))")
            }
            switch (key.form, pair.key) {
            case (.value, nil): throw SettingProblem(key: name, "takes a value: \(name)=…")
            case (.word, _?): throw SettingProblem(key: name, "is a word and takes no value: write \(name) alone")
            default: break
            }
            guard seen.insert(name).inserted, !(name == "nat64" && profile.nat64) else { throw SettingProblem(key: name, "is given twice") }
            try key.set(name, pair.key == nil ? "" : pair.value, &profile, readTrace)
        }
        // The name says what changed a preset: `lte+nat64` for a word, `lte+` for other keys.
        for word in seen.sorted() where LinkProfileKey.named(word)?.form == .word && !seen.contains("name") {
            profile.name = profile.name == "custom" && seen.count == 1 ? word : profile.name + "+" + word
        }
        let overrides = seen.subtracting(["name", "seed"]).filter { LinkProfileKey.named($0)?.form != .word }
        if start == 1, !overrides.isEmpty, !seen.contains("name") { profile.name += "+" }
        try checkConsistency(profile, seen: seen)
        return profile
    }

    /// The bare words a profile takes, for its refusals.
    static var wordNames: String { LinkProfileKey.all.filter { $0.form == .word }.flatMap(\.names).joined(separator: ", ") }

    /// The comma-separated pieces: (key, value) for `key=value`, (nil, text) for a bare piece;
    /// a bare piece right after `loss-model=` is joined to its value.
    static func pairs(_ spec: String) throws(SettingProblem) -> [(key: String?, value: String)] {
        var result: [(key: String?, value: String)] = []
        for raw in spec.split(separator: ",", omittingEmptySubsequences: false) {
            let piece = String(raw).trimmingWhitespace()
            guard !piece.isEmpty else { throw SettingProblem(key: "link", "has an empty piece between commas") }
            if let equals = piece.firstIndex(of: "=") {
                let key = String(piece[..<equals]).trimmingWhitespace().lowercased()
                let value = String(piece[piece.index(after: equals)...]).trimmingWhitespace()
                guard !value.isEmpty else { throw SettingProblem(key: key, "has no value") }
                result.append((key, value))
            } else if let last = result.last, last.key == "loss-model", !last.value.contains(",") {
                result[result.count - 1].value += "," + piece
            } else {
                result.append((nil, piece))
            }
        }
        return result
    }

    /// Cross-key rules: a direction has a rate or a trace, not both; Gilbert loss replaces the
    /// independent loss (a preset's loss is dropped, an explicit one is a conflict).
    private static func checkConsistency(_ profile: LinkProfile, seen: Set<String>) throws(SettingProblem) {
        if seen.contains("trace-down") && seen.contains("rate-down") {
            throw SettingProblem(key: "trace-down", "sets the downlink's deliveries itself; leave rate-down out")
        }
        if seen.contains("trace-up") && seen.contains("rate-up") {
            throw SettingProblem(key: "trace-up", "sets the uplink's deliveries itself; leave rate-up out")
        }
        if case .gilbert = profile.lossModel, seen.contains("loss-down") || seen.contains("loss-up") {
            throw SettingProblem(key: "loss-model", "gilbert sets the loss itself; leave loss-down and loss-up out")
        }
    }

    // MARK: Values

    /// Whole bits per second in `minRate…maxRate`, or nil for `none` (no rate limit).
    static func rate(_ key: String, _ value: String) throws(SettingProblem) -> Int64? {
        if value.lowercased() == "none" { return nil }
        guard let bits = Quantity.rate(value) else { throw SettingProblem(key: key, "\"\(value)\" is not a rate: \(Quantity.rateHint), or none") }
        guard (minRate...maxRate).contains(bits) else {
            throw SettingProblem(key: key, "\(bits) bit/s is outside 1kbit … 100Gbit (for no traffic at all, use loss 100%)")
        }
        return bits
    }

    /// Nanoseconds in 0…`max`.
    static func duration(_ key: String, _ value: String, max: Int64) throws(SettingProblem) -> Int64 {
        guard let seconds = Quantity.duration(value) else { throw SettingProblem(key: key, "\"\(value)\" is not a duration: \(Quantity.durationHint)") }
        guard seconds * 1e9 <= Double(max) else {
            throw SettingProblem(key: key, "\(value) is longer than \(max / 1_000_000_000) s")
        }
        return Int64((seconds * 1e9).rounded())
    }

    /// A percent (`1%`, `0.5 %`) in 0…100, as a fraction.
    public static func percent(_ key: String, _ value: String) throws(SettingProblem) -> Double {
        guard value.hasSuffix("%") else { throw SettingProblem(key: key, "\"\(value)\" is not a percent: write it with %, e.g. 1% or 0.5%") }
        let number = String(value.dropLast()).trimmingWhitespace()
        let bytes = Array(number.utf8)
        guard !bytes.isEmpty, Quantity.numberEnd(in: bytes, from: 0, allowingSign: true) == bytes.count, let percent = Double(number),
              percent.isFinite else {
            throw SettingProblem(key: key, "\"\(value)\" is not a percent: write it with %, e.g. 1% or 0.5%")
        }
        guard (0...100).contains(percent) else { throw SettingProblem(key: key, "\(value) is outside 0% … 100%") }
        return percent / 100
    }

    /// `gilbert:p,r` (percents, `r` above 0) or `independent`.
    static func lossModel(_ value: String) throws(SettingProblem) -> LinkProfile.LossModel {
        let key = "loss-model"
        if value.lowercased() == "independent" { return .independent }
        guard value.lowercased().hasPrefix("gilbert:") else {
            throw SettingProblem(key: key, "\"\(value)\" is not a loss model: gilbert:p,r (e.g. gilbert:1%,30%) or independent")
        }
        let numbers = value.dropFirst("gilbert:".count).split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
        guard numbers.count == 2 else { throw SettingProblem(key: key, "gilbert takes two percents, p and r: gilbert:1%,30%") }
        let p = try percent(key, numbers[0])
        let r = try percent(key, numbers[1])
        guard r > 0 else { throw SettingProblem(key: key, "r (the chance to leave the lossy state) must be above 0%, or the link never recovers") }
        return .gilbert(p: p, r: r)
    }

    /// `50pkt` (also `pkts`, `packets`): a queue of 1…`maxQueuePackets` packets; nil when `value`
    /// names no packet count (then it is a size).
    static func queuePackets(_ value: String) throws(SettingProblem) -> Int64? {
        let lower = value.lowercased()
        guard let suffix = ["packets", "pkts", "pkt"].first(where: { lower.hasSuffix($0) }) else { return nil }
        let digits = String(lower.dropLast(suffix.count)).trimmingWhitespace()
        guard !digits.isEmpty, digits.utf8.count <= 7, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let count = Int64(digits) else {
            throw SettingProblem(key: "queue", "\"\(value)\" is not a number of packets: a whole number, e.g. 50pkt")
        }
        guard (1...maxQueuePackets).contains(count) else {
            throw SettingProblem(key: "queue", "\(count) packets is outside 1 … \(maxQueuePackets)")
        }
        return count
    }

    /// `5s/60s`: down for 5 s at the end of every 60 s; `none` for no outages.
    static func outage(_ value: String) throws(SettingProblem) -> LinkProfile.Outage? {
        let key = "outage"
        if value.lowercased() == "none" { return nil }
        let parts = value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { throw SettingProblem(key: key, "\"\(value)\" is not DURATION/PERIOD, e.g. 5s/60s (down 5 s every 60 s)") }
        let down = try duration(key, parts[0], max: maxOutagePeriodNs)
        let period = try duration(key, parts[1], max: maxOutagePeriodNs)
        guard down > 0 else { throw SettingProblem(key: key, "the outage's duration must be above 0") }
        guard down < period else { throw SettingProblem(key: key, "the outage (\(parts[0])) must be shorter than its period (\(parts[1]))") }
        return LinkProfile.Outage(durationNs: down, periodNs: period)
    }
}
