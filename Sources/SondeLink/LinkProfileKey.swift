import SondeCore

/// One key of a `--link` profile, declared once: its names (`rate-down` and `rate-up` share one
/// declaration), what its value is, its range, and how it sets a `LinkProfile`. `LinkProfileParser`
/// reads keys through this table (unknown-key errors list it), `sonde link --help` lists it, and
/// docs/link.md's key table is `markdownTable` (LinkProfileKeyTests compares them), so a key is added
/// or changed here and nowhere else in the parser, the help or the docs.
///
/// A key is `key=value`, or a bare word (`nat64`): a word takes no value and sets the profile by
/// being there. Every setter range-checks its value and names its key in a refusal.
public struct LinkProfileKey: Sendable {
    /// How a key is written in a profile.
    public enum Form: Sendable, Equatable {
        /// `key=value`.
        case value
        /// The key alone, anywhere after a preset (`lte,nat64`).
        case word
    }

    /// Reads a trace file: (path, key) → trace. Tests pass text instead of files.
    public typealias ReadTrace = (String, String) throws(SettingProblem) -> DeliveryTrace
    /// Sets `profile` from one key: (the key's name as written, its value ("" for a word), the
    /// profile, the trace reader).
    typealias Setter = @Sendable (String, String, inout LinkProfile, ReadTrace) throws(SettingProblem) -> Void

    /// The names this declaration answers to, in the docs' order.
    public let names: [String]
    public let form: Form
    /// What the value is (the docs' "value" column): its type, its words, what it does.
    public let value: String
    /// Its bounds (the docs' "range" column).
    public let range: String
    let set: Setter

    init(_ names: [String], _ form: Form = .value, value: String, range: String, set: @escaping Setter) {
        self.names = names
        self.form = form
        self.value = value
        self.range = range
        self.set = set
    }

    /// The declaration that answers to `name` (lowercase), or nil.
    public static func named(_ name: String) -> LinkProfileKey? { all.first { $0.names.contains(name) } }

    /// Every key's name, in the docs' order.
    public static var allNames: [String] { all.flatMap(\.names) }

    /// docs/link.md's key table (GitHub Markdown), generated from `all`.
    public static var markdownTable: String {
        var lines = ["| key | value | range |", "| --- | --- | --- |"]
        for key in all {
            lines.append("| " + key.names.map { "`\($0)`" }.joined(separator: ", ") + " | \(key.value) | \(key.range) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every key, in the order the docs list them.
    public static let all: [LinkProfileKey] = [
        LinkProfileKey(["rate-down", "rate-up"],
                       value: "bits/s: `780kbit`, `8Mbit`, `1Gbit` (`kbps`/`Mbps`/`Gbps` are bits too), a bare number is bit/s; `none` lifts a preset's rate",
                       range: "1kbit … 100Gbit") { name, value, profile, _ throws(SettingProblem) in
            profile[direction: name].rateBitsPerSecond = try LinkProfileParser.rate(name, value)
        },
        LinkProfileKey(["delay-down", "delay-up"], value: "a duration (`Quantity`: `40ms`, `1s`)", range: "0 … 60 s") { name, value, profile, _ throws(SettingProblem) in
            profile[direction: name].delayNs = try LinkProfileParser.duration(name, value, max: LinkProfileParser.maxDelayNs)
        },
        LinkProfileKey(["jitter"],
                       value: "each packet's delay varies uniformly within ± this; packets are never reordered (a packet that would overtake "
                           + "the previous one waits for it), so the mean delay of packets sent closer together than the jitter's span rises above "
                           + "the set delay (see \"Jitter raises the mean delay\")",
                       range: "0 … 10 s") { name, value, profile, _ throws(SettingProblem) in
            profile.jitterNs = try LinkProfileParser.duration(name, value, max: LinkProfileParser.maxJitterNs)
        },
        LinkProfileKey(["loss-down", "loss-up"], value: "independent loss per packet, with `%`", range: "0 … 100 %") { name, value, profile, _ throws(SettingProblem) in
            profile[direction: name].loss = try LinkProfileParser.percent(name, value)
        },
        LinkProfileKey(["loss-model"],
                       value: "`gilbert:p,r`: Gilbert's two-state chain per direction (Good→Bad with p per packet, Bad→Good with r; every packet "
                           + "in Bad lost; mean loss p/(p+r)); replaces loss-down/up (a preset's loss gives way, an explicit one is refused); `independent`",
                       range: "p, r in 0 … 100 %, r > 0") { _, value, profile, _ throws(SettingProblem) in
            profile.lossModel = try LinkProfileParser.lossModel(value)
            // Gilbert's chain is the whole loss: a preset's independent loss gives way to it.
            if case .gilbert = profile.lossModel { profile.down.loss = 0; profile.up.loss = 0 }
        },
        LinkProfileKey(["queue"],
                       value: "the drop-tail queue in front of each direction's rate or trace: a size (`64KiB`), or a number of packets whatever "
                           + "their size (`50pkt`, also `pkts`/`packets`), as dummynet counts its slots",
                       range: "1500 B … 1 GiB, or 1 … 100,000 packets; default 75,000 B") { name, value, profile, _ throws(SettingProblem) in
            if let packets = try LinkProfileParser.queuePackets(value) {
                profile.queuePackets = packets
                return
            }
            guard let bytes = Quantity.size(value) else {
                throw SettingProblem(key: name, "\"\(value)\" is not a size (\(Quantity.sizeHint)) or a number of packets (50pkt)")
            }
            guard (LinkProfileParser.minQueue...LinkProfileParser.maxQueue).contains(bytes) else {
                throw SettingProblem(key: name, "\(bytes) bytes is outside 1500 bytes (one packet) … 1 GiB")
            }
            profile.queueBytes = bytes
            profile.queuePackets = nil
        },
        LinkProfileKey(["dns-delay"],
                       value: "extra delay of each DNS query (UDP/TCP to port 53, IPv4 or IPv6) on the way up; queries travel on a line of their own, "
                           + "so they hold back nothing else",
                       range: "0 … 60 s") { name, value, profile, _ throws(SettingProblem) in
            profile.dnsDelayNs = try LinkProfileParser.duration(name, value, max: LinkProfileParser.maxDelayNs)
        },
        LinkProfileKey(["outage"],
                       value: "`DURATION/PERIOD`: the link carries nothing for DURATION at the end of every PERIOD from the link's start "
                           + "(`5s/60s`: up 55 s, down 5 s); packets arriving or due during it are dropped; `none`",
                       range: "0 < DURATION < PERIOD ≤ 1 day") { _, value, profile, _ throws(SettingProblem) in
            profile.outage = try LinkProfileParser.outage(value)
        },
        LinkProfileKey(["trace-down", "trace-up"],
                       value: "a mahimahi trace file: one line per delivery opportunity, whole ms since the start, never decreasing; each "
                           + "opportunity carries up to 1500 bytes (a packet may span several); the trace repeats with its last time as period; "
                           + "replaces the direction's rate",
                       range: "≤ 16 MiB, ≤ 1,000,000 lines, each 0 … 10^9 ms, last > 0") { name, value, profile, readTrace throws(SettingProblem) in
            profile[direction: name].trace = try readTrace(value, name)
            profile[direction: name].rateBitsPerSecond = nil
        },
        LinkProfileKey(["seed"],
                       value: "the loss and jitter draws' seed: the same seed, the same drops of the same traffic; it does not rename a preset",
                       range: "0 … 2^63−1; default 1") { name, value, profile, _ throws(SettingProblem) in
            // Decimal, and within Int64 so that the report's signed `seed` holds it as written.
            guard value.utf8.count <= 19, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seed = Int64(value) else {
                throw SettingProblem(key: name, "\"\(value)\" is not a seed: a whole number from 0 to \(Int64.max)")
            }
            profile.seed = UInt64(seed)
        },
        LinkProfileKey(["name"],
                       value: "the profile's name in reports (a suite's `links:` entry sets it to the entry's name); a preset with `name=` is not "
                           + "renamed `PRESET+`",
                       range: "1–64 of a-z, 0-9, `-`, `_`, `.`, `%`") { name, value, profile, _ throws(SettingProblem) in
            guard (1...64).contains(value.utf8.count),
                  value.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E || $0 == 0x25 })
            else { throw SettingProblem(key: name, "\"\(value)\" is not a name: 1 to 64 of a-z, 0-9, '-', '_', '.', '%'") }
            profile.name = value
        },
        LinkProfileKey(["nat64"], .word,
                       value: "a bare word (`nat64`, `lte,nat64`): the namespace has IPv6 only (no IPv4 address or route), and a NAT64 "
                           + "translator (RFC 7915, 64:ff9b::/96) reaches the host's IPv4; see \"IPv6-only links\"",
                       range: "once") { _, _, profile, _ throws(SettingProblem) in
            profile.nat64 = true
        },
    ]
}

extension LinkProfile {
    /// The direction a `-down`/`-up` key names.
    subscript(direction key: String) -> Direction {
        get { key.hasSuffix("-up") ? up : down }
        set { if key.hasSuffix("-up") { up = newValue } else { down = newValue } }
    }
}
