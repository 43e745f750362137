/// Metric families for Prometheus text exposition (format 0.0.4), in the order first added, each
/// written once with its samples together (as the format requires); a family without samples is
/// left out. Label values are escaped as the format requires (backslash, double quote, newline).
///
/// sonde's own writer rather than swift-prometheus's registry: the series here are a finished
/// run's figures, rebuilt whole from a report, not live counters; one writer keeps report files
/// and `sonde serve`'s `/metrics` in one format.
public struct PrometheusFamilies: Sendable {
    public typealias Sample = (labels: [(String, String)], value: Double)

    private var order: [String] = []
    private var families: [String: (type: String, help: String, samples: [Sample])] = [:]

    public init() {}

    /// Adds `samples` to family `name` (made with `type` and `help` the first time).
    public mutating func add(_ name: String, _ type: String, _ help: String, _ samples: [Sample]) {
        if families[name] == nil {
            order.append(name)
            families[name] = (type, help, [])
        }
        families[name]?.samples += samples
    }

    /// Every family of `other` added after these.
    public mutating func add(_ other: PrometheusFamilies) {
        for name in other.order {
            guard let family = other.families[name] else { continue }
            add(name, family.type, family.help, family.samples)
        }
    }

    /// These families with `label` first on every sample that does not have a label of that name.
    public func labelled(_ label: (String, String)) -> PrometheusFamilies {
        var result = self
        for name in order {
            result.families[name]?.samples = families[name]?.samples.map { sample -> Sample in
                sample.labels.contains { $0.0 == label.0 } ? sample : ([label] + sample.labels, sample.value)
            } ?? []
        }
        return result
    }

    /// The names of the families, in order.
    public var names: [String] { order }

    public var text: String {
        var out = ""
        for name in order {
            guard let family = families[name], !family.samples.isEmpty else { continue }
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for sample in family.samples {
                let labels = sample.labels.isEmpty ? "" :
                    "{" + sample.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                out += "\(name)\(labels) \(Self.format(sample.value))\n"
            }
        }
        return out
    }

    public static func escapeLabel(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
