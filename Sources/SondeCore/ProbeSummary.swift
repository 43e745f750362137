/// Aggregates of a probe run, built incrementally as tasks complete (constant memory).
///
/// "cold" transactions opened a new connection; "warm" ones reused one. That is the honest
/// split: with `--no-reuse` every transaction is cold, and a server that closes keep-alive
/// connections turns repeats cold too.
public struct ProbeSummary: Sendable {
    public var tasks = 0
    public var failedTasks = 0
    public var transactions = 0
    public var reusedTransactions = 0
    public var errorsByCode: [String: Int] = [:]
    public var protocols: [String: Int] = [:]
    public var statusCodes: [String: Int] = [:]
    /// Per phase name, the distribution over cold transactions.
    /// The soonest `notAfter` among the peer certificates seen (null when no TLS was used).
    public var earliestCertificateExpiry: Timestamp?
    /// Phase distributions over every transaction with a response (cold and warm together).
    public var all: [String: DistributionSummary] = [:]
    public var cold: [String: DistributionSummary] = [:]
    /// Per phase name, the distribution over warm transactions.
    public var warm: [String: DistributionSummary] = [:]
    /// The same cold and warm split per protocol (`networkProtocolName`), so that h2 and h3 (an
    /// `--http3` run, or one Alt-Svc moved to h3) compare phase by phase.
    public var byProtocol: [String: ProtocolPhases] = [:]
    /// Per URL (as the task has it, redacted), for tasks over an emulated link only: the figures
    /// a suite's "by link, URL and protocol" comparison reads (`URLFigures`); nil (absent from the
    /// JSON) when no task crossed a link.
    public var byURL: [String: URLFigures]?
    /// Tasks over a link whose URL came after `maxURLs` others (not in `byURL`); nil when none.
    public var urlsOmitted: Int?

    public init() {}

    /// One protocol's phase distributions.
    public struct ProtocolPhases: Sendable, Equatable {
        public var cold: [String: DistributionSummary] = [:]
        public var warm: [String: DistributionSummary] = [:]
        public init(cold: [String: DistributionSummary] = [:], warm: [String: DistributionSummary] = [:]) {
            self.cold = cold
            self.warm = warm
        }
    }
}

/// Keys in the sorted order `JSONEncoder` writes. `byProtocol` may be missing: reports written
/// before it existed still read.
extension ProbeSummary: FieldModel {
    public static let blank = ProbeSummary()
    public static var schemaName: String? { "summary" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("all", &all, .required)
        try v.visit("byProtocol", &byProtocol, .field)
        try v.visit("byURL", &byURL, .omittedWhenNil)
        try v.visit("urlsOmitted", &urlsOmitted, FieldRule(omitsNil: true, unit: .count))
        try v.visit("cold", &cold, .required)
        try v.visit("earliestCertificateExpiry", &earliestCertificateExpiry, .field)
        try v.visit("errorsByCode", &errorsByCode, .requiredCount)
        try v.visit("failedTasks", &failedTasks, .requiredCount)
        try v.visit("protocols", &protocols, .requiredCount)
        try v.visit("reusedTransactions", &reusedTransactions, .requiredCount)
        try v.visit("statusCodes", &statusCodes, .requiredCount)
        try v.visit("tasks", &tasks, .requiredCount)
        try v.visit("transactions", &transactions, .requiredCount)
        try v.visit("warm", &warm, .required)
    }
}

extension ProbeSummary.ProtocolPhases: FieldModel {
    public static let blank = ProbeSummary.ProtocolPhases()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("cold", &cold, .required)
        try v.visit("warm", &warm, .required)
    }
}

/// Builds a `ProbeSummary` from tasks, one at a time.
///
/// Distributions are kept per phase in `Phases.names` order (an index, not a dictionary lookup
/// per phase and transaction), each created at its first value.
public struct ProbeSummaryBuilder: Sendable {
    private var summary = ProbeSummary()
    private var all = [LatencyDistribution?](repeating: nil, count: Phases.names.count)
    private var cold = [LatencyDistribution?](repeating: nil, count: Phases.names.count)
    private var warm = [LatencyDistribution?](repeating: nil, count: Phases.names.count)
    /// Per protocol name, cold and warm tables like the two above.
    private var byProtocol: [String: (cold: [LatencyDistribution?], warm: [LatencyDistribution?])] = [:]
    /// Per URL of a task over a link: its figures so far and its cold and warm tables (coarse).
    private var byURL: [String: (figures: ProbeSummary.URLFigures, cold: [LatencyDistribution?], warm: [LatencyDistribution?])] = [:]
    private static let noTable = [LatencyDistribution?](repeating: nil, count: Phases.names.count)

    public init() {}

    /// Tasks added so far.
    public var tasks: Int { summary.tasks }

    /// Tasks added so far that ended in an error.
    public var failedTasks: Int { summary.failedTasks }

    public mutating func add(_ task: ProbeTask) {
        summary.tasks += 1
        if let error = task.error {
            summary.failedTasks += 1
            summary.errorsByCode[error.code.rawValue, default: 0] += 1
        }
        if task.link != nil { addByURL(task) }
        for transaction in task.transactionMetrics {
            summary.transactions += 1
            if transaction.isReusedConnection { summary.reusedTransactions += 1 }
            for certificate in transaction.peerCertificates {
                guard let expiry = certificate.notAfter else { continue }
                if summary.earliestCertificateExpiry.map({ expiry < $0 }) ?? true { summary.earliestCertificateExpiry = expiry }
            }
            if let name = transaction.networkProtocolName { summary.protocols[name, default: 0] += 1 }
            if let status = transaction.response?.statusCode { summary.statusCodes[String(status), default: 0] += 1 }
            guard transaction.response != nil else { continue }
            let values = transaction.phases.values
            let reused = transaction.isReusedConnection
            for index in values.indices {
                guard let value = values[index] else { continue }
                Self.record(value, at: index, in: &all)
                if reused { Self.record(value, at: index, in: &warm) } else { Self.record(value, at: index, in: &cold) }
            }
            if let name = transaction.networkProtocolName {
                // In place: the dictionary's entry is mutated, never copied out and back.
                Self.record(values, reused: reused, in: &byProtocol[name, default: (Self.noTable, Self.noTable)])
            }
        }
    }

    /// A task over a link into its URL's figures (the first `ProbeSummary.maxURLs` URLs).
    private mutating func addByURL(_ task: ProbeTask) {
        let start = task.taskInterval.start
        let end = start.adding(microseconds: Int64((min(max(task.taskInterval.durationMs, 0), FieldRule.maxDurationMs) * 1000).rounded()))
        if byURL[task.url] == nil {
            guard byURL.count < ProbeSummary.maxURLs else {
                summary.urlsOmitted = (summary.urlsOmitted ?? 0) + 1
                return
            }
        }
        // Moved out and back: the tables stay uniquely referenced, never copied.
        var entry = byURL.removeValue(forKey: task.url)
            ?? (figures: ProbeSummary.URLFigures(firstStart: start, lastEnd: end), cold: Self.noTable, warm: Self.noTable)
        Self.add(task, start: start, end: end, to: &entry)
        byURL[task.url] = entry
    }

    private static func add(_ task: ProbeTask, start: Timestamp, end: Timestamp,
                            to entry: inout (figures: ProbeSummary.URLFigures, cold: [LatencyDistribution?], warm: [LatencyDistribution?])) {
        entry.figures.tasks += 1
        if task.error != nil { entry.figures.failedTasks += 1 }
        entry.figures.firstStart = min(entry.figures.firstStart, start)
        entry.figures.lastEnd = max(entry.figures.lastEnd, end)
        for transaction in task.transactionMetrics {
            if let name = transaction.networkProtocolName { entry.figures.protocols[name, default: 0] += 1 }
            guard transaction.response != nil else { continue }
            let values = transaction.phases.values
            for index in values.indices {
                guard let value = values[index] else { continue }
                if transaction.isReusedConnection {
                    record(value, at: index, in: &entry.warm, precision: .coarse)
                } else {
                    record(value, at: index, in: &entry.cold, precision: .coarse)
                }
            }
        }
    }

    private static func record(_ values: [Double?], reused: Bool,
                               in tables: inout (cold: [LatencyDistribution?], warm: [LatencyDistribution?])) {
        for index in values.indices {
            guard let value = values[index] else { continue }
            if reused { record(value, at: index, in: &tables.warm) } else { record(value, at: index, in: &tables.cold) }
        }
    }

    private static func record(_ milliseconds: Double, at index: Int, in table: inout [LatencyDistribution?],
                               precision: LatencyDistribution.Precision = .fine) {
        if table[index] == nil { table[index] = LatencyDistribution(precision: precision) }
        table[index]!.record(milliseconds: milliseconds)
    }

    private static func summaries(_ table: [LatencyDistribution?]) -> [String: DistributionSummary] {
        var result: [String: DistributionSummary] = [:]
        for (index, distribution) in table.enumerated() {
            if let summary = distribution?.summary { result[Phases.names[index]] = summary }
        }
        return result
    }

    public var result: ProbeSummary {
        var result = summary
        result.all = Self.summaries(all)
        result.cold = Self.summaries(cold)
        result.warm = Self.summaries(warm)
        result.byProtocol = byProtocol.mapValues { ProbeSummary.ProtocolPhases(cold: Self.summaries($0.cold), warm: Self.summaries($0.warm)) }
        result.byURL = byURL.isEmpty ? nil : byURL.mapValues { entry in
            var figures = entry.figures
            figures.cold = Self.summaries(entry.cold)
            figures.warm = Self.summaries(entry.warm)
            return figures
        }
        return result
    }
}
