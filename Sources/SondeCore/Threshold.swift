/// One pass/fail rule over a run's metrics, in the spirit of k6: `metric.aggregation OP bound`,
/// e.g. `wait.p95<200ms`, `errors.rate<1%`, `tls.max<=300ms`, `errors.count==0`; a probe metric
/// may name the requests it judges in braces, as k6's tags do (`total.p95{name=login}<300ms`,
/// `RequestSelector`).
///
/// Parsing checks the whole expression against `ThresholdMetric`'s catalogue, so a typo is a
/// usage error that points at the bad token, before any network work starts.
/// Invariant: `bound` is in the metric's canonical unit (milliseconds for durations, a fraction
/// in 0…1 for rates, a plain number for counts), whatever unit the user wrote.
public struct Threshold: Sendable, Equatable {
    public enum Comparison: String, Sendable, CaseIterable {
        case lessOrEqual = "<=", greaterOrEqual = ">=", equal = "==", notEqual = "!=", less = "<", greater = ">"

        public func holds(_ observed: Double, _ bound: Double) -> Bool {
            switch self {
            case .less: return observed < bound
            case .lessOrEqual: return observed <= bound
            case .greater: return observed > bound
            case .greaterOrEqual: return observed >= bound
            case .equal: return observed == bound
            case .notEqual: return observed != bound
            }
        }
    }

    /// The largest bound accepted, in the metric's canonical unit: 10^15 (ms for durations, about
    /// 31,700 years), so that every comparison and every printed value stays exact and in range.
    public static let maxBound = 1e15

    /// The text as the user wrote it (kept verbatim for reports).
    public var expression: String
    public var metric: ThresholdMetric
    public var comparison: Comparison
    public var bound: Double
    /// For `….delta` metrics: whether the bound is a relative change (written with %) rather
    /// than an absolute one in milliseconds.
    public var relativeChange = false

    /// - Parameter declared: the metrics check kinds declare (`DeclaredMetric`) that the
    ///   expression may name beside the catalogue's.
    public init(parsing text: String, declared: DeclaredMetrics = .listed([])) throws(ThresholdSyntaxError) {
        let expression = text.trimmingWhitespace()
        let bytes = Array(expression.utf8)
        guard let (operatorStart, comparison) = try Self.findOperator(bytes, expression: expression) else {
            throw ThresholdSyntaxError(expression: expression, column: 0,
                                       problem: "no comparison: expected one of < <= > >= == != (e.g. wait.p95<200ms)")
        }
        // The metric, then perhaps its selector in braces (`findOperator` found them closed).
        var metricEnd = operatorStart
        var selector: RequestSelector?
        if let open = bytes[..<operatorStart].firstIndex(of: UInt8(ascii: "{")),
           let close = bytes[open..<operatorStart].firstIndex(of: UInt8(ascii: "}")) {
            if let stray = bytes[(close + 1)..<operatorStart].firstIndex(where: { $0 != 0x20 }) {
                throw ThresholdSyntaxError(expression: expression, column: stray,
                                           problem: "unexpected text after the selector: the comparison comes next (e.g. total.p95{name=login}<300ms)")
            }
            selector = try RequestSelector(parsing: bytes[(open + 1)..<close], offset: open + 1, expression: expression)
            metricEnd = open
        }
        let left = String(decoding: bytes[..<metricEnd], as: UTF8.self).trimmingWhitespace()
        let rightStart = operatorStart + comparison.rawValue.utf8.count
        let right = String(decoding: bytes[rightStart...], as: UTF8.self)
        var metric = try ThresholdMetric(parsing: left, expression: expression, declared: declared)
        if let selector {
            guard !metric.path.hasPrefix("ws.") && !metric.isDeclared else {
                throw ThresholdSyntaxError(expression: expression, column: metricEnd,
                                           problem: "a selector picks a probe's requests: ws.* metrics of a soak and a kind's own metrics (sse.*) take none")
            }
            metric.selector = selector
        }
        let (value, unit, unitColumn) = try Self.parseBound(right, offset: rightStart, expression: expression)
        guard let bound = metric.kind.canonical(value, unit: unit) else {
            throw ThresholdSyntaxError(
                expression: expression, column: unitColumn,
                problem: "'\(unit.isEmpty ? value.description : unit)' is not a \(metric.kind.noun) (\(metric.kind.unitsHint))")
        }
        guard abs(bound) <= Self.maxBound else {
            throw ThresholdSyntaxError(
                expression: expression, column: rightStart,
                problem: "the bound is out of range: it must be at most 10^15 (1000000000000000) in size, "
                    + "counted in the metric's unit (milliseconds for durations)")
        }
        self.expression = expression
        self.metric = metric
        self.comparison = comparison
        self.bound = bound
        relativeChange = metric.kind == .change && unit == "%"
    }

    /// The first comparison outside a selector's braces (a selector's values may hold `<`, `=`).
    private static func findOperator(_ bytes: [UInt8], expression: String) throws(ThresholdSyntaxError) -> (Int, Comparison)? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{") {
                guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw ThresholdSyntaxError(expression: expression, column: index,
                                               problem: "the selector is not closed: add } before the comparison (e.g. total.p95{name=login}<300ms)")
                }
                index = close + 1
                continue
            }
            for candidate in Comparison.allCases {  // two-character operators are listed first
                let symbol = Array(candidate.rawValue.utf8)
                if bytes[index...].starts(with: symbol) { return (index, candidate) }
            }
            index += 1
        }
        return nil
    }

    /// Splits "200ms" into (200, "ms"); `column` of the unit for error messages.
    private static func parseBound(_ text: String, offset: Int, expression: String) throws(ThresholdSyntaxError)
        -> (Double, String, Int) {
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        let end = Quantity.numberEnd(in: bytes, from: start, allowingSign: true)
        let number = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let value = Double(number), value.isFinite else {
            throw ThresholdSyntaxError(expression: expression, column: offset + start,
                                       problem: "expected a number after the comparison, found '\(String(decoding: bytes[start...], as: UTF8.self))'")
        }
        let unit = String(decoding: bytes[end...], as: UTF8.self).trimmingWhitespace()
        return (value, unit, offset + end)
    }
}

/// A malformed threshold expression: what is wrong and where (0-based column in `expression`).
public struct ThresholdSyntaxError: Error, Sendable, Equatable {
    public var expression: String
    public var column: Int
    public var problem: String

    /// Two lines a terminal shows under each other: the expression and a caret under the bad token.
    public var message: String {
        "invalid threshold '\(expression)': \(problem)\n    \(expression)\n    \(String(repeating: " ", count: column))^"
    }
}

/// What a threshold measures: a path such as `wait.p95` (phase and aggregation, over all
/// transactions, or only cold/warm ones with a `cold.`/`warm.` prefix), `errors.rate`,
/// `errors.count`, `reuse.rate`, `tasks.count`.
public struct ThresholdMetric: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case duration, rate, count
        /// The difference from a baseline run (`….delta`): relative with %, else absolute ms.
        case change

        var noun: String {
            switch self {
            case .duration: return "duration"
            case .rate: return "rate"
            case .count: return "count"
            case .change: return "change"
            }
        }

        var unitsHint: String {
            switch self {
            case .duration: return "add a unit: us, ms, s, m or h (a bare number once meant ms here and means seconds elsewhere in sonde, so it is refused)"
            case .rate: return "use a percentage like 1% or a fraction like 0.01"
            case .count: return "use a plain number"
            case .change: return "use % for a relative change, or a duration with its unit (us, ms, s, m, h) for an absolute one"
            }
        }

        /// The bound in canonical units, or nil when `unit` does not fit this kind.
        func canonical(_ value: Double, unit: String) -> Double? {
            switch (self, unit) {
            case (.duration, ""): return nil
            case (.duration, let unit):
                // The units of sonde's one duration parser, in the metric's milliseconds.
                return Quantity.durationUnits.first { $0.suffix == unit.lowercased() }.map { value * $0.seconds * 1000 }
            case (.rate, "%"): return value / 100
            case (.rate, ""): return value
            case (.count, ""): return value
            case (.change, "%"): return value / 100
            case (.change, _): return Kind.duration.canonical(value, unit: unit)
            default: return nil
            }
        }
    }

    public enum Population: String, Sendable { case all, cold, warm }

    /// Dotted path as written, normalised (lowercase).
    public var path: String
    public var kind: Kind
    /// For phase metrics: which transactions, which phase, which aggregation.
    public var population: Population = .all
    public var phase: String?
    public var aggregation: String?
    /// `….delta`: compared with the same metric of a baseline run (`--baseline`).
    public var comparedToBaseline = false
    /// The requests judged (`total.p95{name=login}`); nil: the whole run (or check).
    public var selector: RequestSelector?
    /// A metric a check kind declares (`DeclaredMetric`), observed in `DeclaredMetricValues`.
    public var isDeclared = false

    /// The metric as messages name it: its path and its selector (`total.p95{name=login}`).
    public var displayName: String { path + (selector?.text ?? "") }

    public static let aggregations = ["min", "p50", "p90", "p95", "p99", "max", "mean", "count"]
    public static let catalogue = "<phase>.<aggregation> with phase one of \(Phases.names.joined(separator: ", ")) "
        + "and aggregation one of \(aggregations.joined(separator: ", ")) (prefix cold. or warm. for only those), "
        + "errors.rate, errors.count, reuse.rate, tasks.count; append .delta to a phase metric to compare "
        + "with --baseline (e.g. wait.p95.delta<10%); after a probe metric, {name=NAME} or {url=URL} judges those "
        + "requests only (e.g. total.p95{name=login}<300ms); for soaks ws.ping.<aggregation>, ws.echo.<aggregation>, "
        + "ws.recover.<aggregation>, ws.reconnects.count, ws.missed.count, ws.lost.count, ws.lost.rate, "
        + "ws.corrupted.count, ws.gaveup.count"

    /// The soak distributions (`ws.<name>.<aggregation>`) and counters (`ws.<name>.count`).
    static let soakDistributions = ["ping", "echo", "recover"]
    static let soakCounters = ["reconnects", "missed", "lost", "corrupted", "gaveup"]

    /// The first segments of the catalogue's metrics: a declared metric starts with none of them.
    static var namespaces: Set<String> { Set(Phases.names + ["cold", "warm", "errors", "reuse", "tasks", "ws"]) }

    /// A declared metric's unit, from its path's last segment (see `DeclaredMetric`).
    static func declaredKind(last: String) -> Kind {
        last == "count" ? .count : aggregations.contains(last) ? .duration : .rate
    }

    public var description: String { path }

    init(parsing text: String, expression: String, declared: DeclaredMetrics = .listed([])) throws(ThresholdSyntaxError) {
        let path = text.lowercased()
        self.path = path
        var parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var known = Self.catalogue
        if case .listed(let metrics) = declared, !metrics.isEmpty { known += "; declared by check kinds: " + metrics.map(\.written).joined(separator: ", ") }
        let unknown = ThresholdSyntaxError(expression: expression, column: 0,
                                           problem: "unknown metric '\(text)'; known: \(known)")
        if parts.count >= 2, let first = parts.first, !Self.namespaces.contains(first) {
            let name = parts.dropLast().joined(separator: "."), last = parts[parts.count - 1]
            switch declared {
            case .listed(let metrics):
                if metrics.contains(where: { !$0.isDistribution && $0.name == path }) {
                    // A plain value.
                } else if metrics.contains(where: { $0.isDistribution && $0.name == name }) {
                    guard Self.aggregations.contains(last) else {
                        throw ThresholdSyntaxError(expression: expression, column: text.utf8.count - last.utf8.count,
                                                   problem: "unknown aggregation '\(last)'; use one of \(Self.aggregations.joined(separator: ", "))")
                    }
                } else {
                    throw unknown
                }
            case .any:
                guard parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) } })
                else { throw unknown }
            }
            isDeclared = true
            kind = Self.declaredKind(last: last)
            if Self.aggregations.contains(last) { aggregation = last }
            return
        }
        switch parts {
        case ["errors", "rate"], ["reuse", "rate"]: kind = .rate; return
        case ["errors", "count"], ["tasks", "count"]: kind = .count; return
        case ["ws", "lost", "rate"]: kind = .rate; return
        default: break
        }
        if parts.count == 3, parts[0] == "ws" {
            if Self.soakCounters.contains(parts[1]) && parts[2] == "count" { kind = .count; return }
            guard Self.soakDistributions.contains(parts[1]) else { throw unknown }
            guard Self.aggregations.contains(parts[2]) else {
                let column = text.utf8.count - parts[2].utf8.count
                throw ThresholdSyntaxError(expression: expression, column: column,
                                           problem: "unknown aggregation '\(parts[2])'; use one of \(Self.aggregations.joined(separator: ", "))")
            }
            aggregation = parts[2]
            kind = parts[2] == "count" ? .count : .duration
            return
        }
        if parts.count > 2, parts.last == "delta" {
            comparedToBaseline = true
            parts.removeLast()
        }
        if let first = parts.first, let population = Population(rawValue: first), population != .all {
            self.population = population
            parts.removeFirst()
        }
        guard parts.count == 2, Phases.names.contains(parts[0]) else { throw unknown }
        guard Self.aggregations.contains(parts[1]) else {
            let column = text.utf8.count - parts[1].utf8.count
            throw ThresholdSyntaxError(expression: expression, column: column,
                                       problem: "unknown aggregation '\(parts[1])'; use one of \(Self.aggregations.joined(separator: ", "))")
        }
        phase = parts[0]
        aggregation = parts[1]
        kind = parts[1] == "count" ? .count : .duration
        if comparedToBaseline {
            guard kind == .duration else {
                throw ThresholdSyntaxError(expression: expression, column: 0, problem: "only durations compare with a baseline (.delta)")
            }
            kind = .change
        }
    }
}

/// A threshold's outcome, as the report's `thresholds[]` holds it.
public struct ThresholdResult: Codable, Sendable, Equatable {
    public var expression: String
    /// The observed value in the metric's canonical unit (ms, fraction, count); null when the run
    /// had no data for it, which fails the threshold: a gate that could not be checked does not pass.
    public var observed: Double?
    public var passed: Bool
    /// A sentence for people: "wait.p95 was 212.4 ms, bound < 200 ms".
    public var message: String
    /// The check of a `sonde run` suite whose rule this is; nil (and absent) for the run's own thresholds.
    public var check: String?

    public init(expression: String, observed: Double?, passed: Bool, message: String) {
        self.expression = expression
        self.observed = observed
        self.passed = passed
        self.message = message
    }
}

extension Threshold {
    /// Evaluates against a finished run's summary (and, for `.delta` metrics, a baseline's). A
    /// metric with a selector judges the requests it picks (`summary.byRequest`); one that picks
    /// none, or several where a percentile is asked, fails with a message that says so.
    /// - Parameter declared: the values of declared metrics the run's (or check's) checks recorded.
    public func evaluate(_ summary: ProbeSummary, baseline: ProbeSummary? = nil, soaks: [SoakReport] = [],
                         declared: [DeclaredMetricValues] = []) -> ThresholdResult {
        let name = metric.displayName
        func failed(_ message: String) -> ThresholdResult {
            ThresholdResult(expression: expression, observed: nil, passed: false, message: message)
        }
        if metric.comparedToBaseline {
            guard let baseline else { return failed("\(name) compares with a baseline run: give one with --baseline") }
            let current: Double, before: Double
            switch (metric.observed(in: summary), metric.observed(in: baseline)) {
            case (.failure(let why), _): return failed("\(name): \(why)")
            case (_, .failure(let why)): return failed("\(name): in the baseline, \(why)")
            case (.success(let now?), .success(let then?)): (current, before) = (now, then)
            default: return failed("\(name): no data in this run or the baseline, so the threshold cannot pass")
            }
            let change = relativeChange ? (before > 0 ? (current - before) / before : nil) : current - before
            guard let change else { return failed("\(name): the baseline's value is 0, so a relative change is undefined") }
            let passed = comparison.holds(change, bound)
            let shown = relativeChange ? "\(rounded(change * 100, 1))%" : "\(rounded(change, 3)) ms"
            let limit = relativeChange ? "\(rounded(bound * 100, 3))%" : "\(rounded(bound, 3)) ms"
            return ThresholdResult(expression: expression, observed: change, passed: passed,
                                   message: "\(name) changed by \(shown) (\(rounded(before, 3)) → \(rounded(current, 3)) ms), bound \(comparison.rawValue) \(limit)")
        }
        let observed: Double
        if metric.selector != nil {
            switch metric.observed(in: summary) {
            case .failure(let why): return failed("\(name): \(why)")
            case .success(nil): return failed("\(name): no data in this run, so the threshold cannot pass")
            case .success(let value?): observed = value
            }
        } else {
            guard let value = metric.value(summary, soaks: soaks, declared: declared) else {
                return failed("\(name): no data in this run, so the threshold cannot pass")
            }
            observed = value
        }
        let passed = comparison.holds(observed, bound)
        return ThresholdResult(expression: expression, observed: observed, passed: passed,
                               message: "\(name) was \(format(observed)), bound \(comparison.rawValue) \(format(bound))")
    }

    private func format(_ value: Double) -> String {
        switch metric.kind {
        case .duration: return "\(rounded(value, 3)) ms"
        case .rate: return "\(rounded(value * 100, 3))%"
        case .count: return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .change: return relativeChange ? "\(rounded(value * 100, 3))%" : "\(rounded(value, 3)) ms"
        }
    }

    private func rounded(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let result = (value * scale).rounded() / scale
        return result == result.rounded() && abs(result) < 1e15 ? String(Int64(result)) : String(result)
    }
}

extension ThresholdMetric {
    /// A metric by its path alone (`total.p95`, `cold.wait.p50`, `errors.rate`, `ws.ping.p99`), as
    /// the left side of a threshold reads it; not `.delta` metrics, which need a baseline.
    public init(path: String) throws(ThresholdSyntaxError) {
        try self.init(parsing: path, expression: path)
        guard !comparedToBaseline else {
            throw ThresholdSyntaxError(expression: path, column: 0, problem: "a .delta metric needs a baseline run")
        }
    }

    /// The metric's value in a finished run (or check) in its canonical unit (ms, fraction,
    /// count): what a threshold on it observes, and what the run history stores. Nil when the run
    /// has no data for it (no task, no response, no soak) and for `.delta` metrics.
    /// A declared metric (`isDeclared`) is the first value recorded for its path in `declared`.
    public func value(_ summary: ProbeSummary, soaks: [SoakReport] = [], declared: [DeclaredMetricValues] = []) -> Double? {
        guard !comparedToBaseline else { return nil }
        if isDeclared { return declared.lazy.compactMap { $0.metrics[path] }.first { $0.isFinite } }
        if selector != nil { return (try? observed(in: summary).get()) ?? nil }
        switch path {
        case "errors.rate": return summary.tasks > 0 ? Double(summary.failedTasks) / Double(summary.tasks) : nil
        case "errors.count": return Double(summary.failedTasks)
        case "reuse.rate": return summary.transactions > 0 ? Double(summary.reusedTransactions) / Double(summary.transactions) : nil
        case "tasks.count": return Double(summary.tasks)
        case _ where path.hasPrefix("ws."): return soakValue(soaks)
        default: return phaseValue(summary)
        }
    }

    /// What a probe metric observes in `summary`, over its selector's requests when it has one:
    /// the value (nil: no data), or why it cannot be told (the selector picks no request, or
    /// several where a distribution is asked: percentiles are kept per request). Not for soak metrics.
    func observed(in summary: ProbeSummary) -> Result<Double?, SelectionProblem> {
        guard let selector else {
            if path.hasPrefix("ws.") || isDeclared { return .success(nil) }
            return .success(comparedToBaseline ? phaseValue(summary) : value(summary))
        }
        let picked = summary.byRequest.filter(selector.matches)
        guard !picked.isEmpty else {
            let names = summary.byRequest.prefix(8).map { "'\($0.name)'" }.joined(separator: ", ")
            var why = "no request of this run matches \(selector.text)"
            why += summary.byRequest.isEmpty ? " (it has none)" : " (its requests: \(names)\(summary.byRequest.count > 8 ? ", …" : ""))"
            if let omitted = summary.requestsOmitted {
                why += "; \(omitted) tasks of names beyond the first \(ProbeSummary.maxRequests) were not kept"
            }
            return .failure(SelectionProblem(why + ", so the threshold cannot pass"))
        }
        func total(_ count: (ProbeSummary.RequestFigures) -> Int) -> Double { Double(picked.reduce(0) { $0 + count($1) }) }
        switch path {
        case "errors.rate": return .success(total(\.count) > 0 ? total(\.errors) / total(\.count) : nil)
        case "errors.count": return .success(total(\.errors))
        case "reuse.rate": return .success(total(\.transactions) > 0 ? total(\.reusedTransactions) / total(\.transactions) : nil)
        case "tasks.count": return .success(total(\.count))
        default:
            guard picked.count == 1 else {
                let names = picked.prefix(4).map { "'\($0.name)'" }.joined(separator: ", ")
                return .failure(SelectionProblem("\(selector.text) matches \(picked.count) requests (\(names)\(picked.count > 4 ? ", …" : "")); "
                    + "percentiles are kept per request, so select one (by name)"))
            }
            let request = picked[0]
            let table: [String: DistributionSummary]
            switch population {
            case .all: table = request.all
            case .cold: table = request.cold
            case .warm: table = request.warm
            }
            return .success(table[phase ?? ""].map { $0.value(named: aggregation ?? "") })
        }
    }

    /// A soak metric over the run's soaks (one soak per run today; counts add up, distributions
    /// come from the first soak that has them). Nil without a soak.
    func soakValue(_ soaks: [SoakReport]) -> Double? {
        guard !soaks.isEmpty else { return nil }
        let parts = path.split(separator: ".").map(String.init)
        func total(_ value: (SoakReport) -> Int) -> Double { Double(soaks.reduce(0) { $0 + value($1) }) }
        switch (parts[1], parts[2]) {
        case ("reconnects", _): return total { $0.reconnects.count }
        case ("missed", _): return total { $0.pings.missed }
        case ("lost", "count"): return total { $0.messages.lost }
        case ("lost", _):
            let sent = total { $0.messages.sent }
            return sent > 0 ? total { $0.messages.lost } / sent : nil
        case ("corrupted", _): return total { $0.messages.corrupted }
        case ("gaveup", _): return total { $0.gaveUp }
        default:
            let distributions = soaks.compactMap { soak -> DistributionSummary? in
                switch parts[1] {
                case "ping": return soak.pings.rttMs
                case "echo": return soak.messages.rttMs
                default: return soak.reconnects.timeToRecoverMs
                }
            }
            return distributions.first.map { $0.value(named: parts[2]) }
        }
    }

    /// A phase metric over the whole summary (its selector, if any, not applied: see `observed`).
    func phaseValue(_ summary: ProbeSummary) -> Double? {
        let table: [String: DistributionSummary]
        switch population {
        case .all: table = summary.all
        case .cold: table = summary.cold
        case .warm: table = summary.warm
        }
        return table[phase ?? ""].map { $0.value(named: aggregation ?? "") }
    }
}

/// Why a selector's metric cannot be told (in words, after the metric's name).
struct SelectionProblem: Error {
    let words: String
    init(_ words: String) { self.words = words }
}

extension SelectionProblem: CustomStringConvertible {
    var description: String { words }
}

extension DistributionSummary {
    /// The aggregation by name (`Threshold` checked it against `ThresholdMetric.aggregations`).
    public func value(named name: String) -> Double {
        switch name {
        case "min": return min
        case "p50": return p50
        case "p90": return p90
        case "p95": return p95
        case "p99": return p99
        case "max": return max
        case "count": return Double(count)
        default: return mean
        }
    }
}
