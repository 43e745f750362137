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
    /// Per request name (`RequestFigures`, `RequestName`), in the order each name was first seen:
    /// what the per-request tables of every format show, what thresholds with a selector
    /// (`total.p95{name=login}`) judge, and what a suite's "by link, URL and protocol"
    /// comparison reads. Empty in reports written before it.
    public var byRequest: [RequestFigures] = []
    /// Tasks whose name came after `maxRequests` others (not in `byRequest`); nil when none.
    public var requestsOmitted: Int?
    /// Bytes sent (request headers and bodies) and received (response headers and bodies, as
    /// on the wire), over every transaction.
    public var bytesSent: Int64 = 0
    public var bytesReceived: Int64 = 0
    /// From the first task's start to the last task's end (ms); nil without tasks.
    public var durationMs: Double?
    /// Transactions (requests sent, redirect hops included) per second of `durationMs`; nil
    /// without tasks or when they took no measurable time.
    public var requestsPerSecond: Double?

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

/// Keys in the sorted order `JSONEncoder` writes. `byProtocol`, `byRequest`, the bytes, the
/// duration and the rate may be missing: reports written before they existed still read.
extension ProbeSummary: FieldModel {
    public static let blank = ProbeSummary()
    public static var schemaName: String? { "summary" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("all", &all, .required)
        try v.visit("byProtocol", &byProtocol, .field)
        try v.visit("byRequest", &byRequest, .field)
        try v.visit("bytesReceived", &bytesReceived, .count)
        try v.visit("bytesSent", &bytesSent, .count)
        try v.visit("cold", &cold, .required)
        try v.visit("durationMs", &durationMs, .milliseconds)
        try v.visit("earliestCertificateExpiry", &earliestCertificateExpiry, .field)
        try v.visit("errorsByCode", &errorsByCode, .requiredCount)
        try v.visit("failedTasks", &failedTasks, .requiredCount)
        try v.visit("protocols", &protocols, .requiredCount)
        try v.visit("requestsOmitted", &requestsOmitted, FieldRule(omitsNil: true, unit: .count))
        try v.visit("requestsPerSecond", &requestsPerSecond, FieldRule(unit: .nonNegative))
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
/// per phase and transaction), each created at its first value. Each value is recorded once per
/// table set, cold or warm: every `all` (the run's and each request name's) is the two merged when
/// the result is made, which gives the distribution recording each value there would.
/// Per request name, cold and warm tables at 1 % precision (the first `ProbeSummary.maxRequests` names).
public struct ProbeSummaryBuilder: Sendable {
    private var summary = ProbeSummary()
    private var cold = [LatencyDistribution?](repeating: nil, count: Phases.names.count)
    private var warm = [LatencyDistribution?](repeating: nil, count: Phases.names.count)
    /// Per protocol name, cold and warm tables like the two above.
    private var byProtocol: [String: (cold: [LatencyDistribution?], warm: [LatencyDistribution?])] = [:]
    /// Per request name, in the order first seen: its figures so far and its cold and warm tables (coarse).
    private var requests: [(figures: ProbeSummary.RequestFigures, cold: [LatencyDistribution?], warm: [LatencyDistribution?])] = []
    /// Where each name's entry is in `requests`.
    private var requestIndex: [String: Int] = [:]
    /// The method, URL and `requests` index of the last task named by default (no name of its
    /// own): a run's tasks mostly repeat them, and comparing the two strings costs less than
    /// making the name (`RequestName.defaultName`) and looking it up.
    private var lastDefaultName: (method: String, url: String, index: Int)?
    private var firstStart: Timestamp?
    private var lastEnd: Timestamp?
    private static let noTable = [LatencyDistribution?](repeating: nil, count: Phases.names.count)
    /// `Phase.allCases` made once (each use of the synthesized property makes a new array).
    private static let phases = Phase.allCases

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
        let start = task.taskInterval.start
        let end = start.adding(microseconds: Int64((min(max(task.taskInterval.durationMs, 0), FieldRule.maxDurationMs) * 1000).rounded()))
        firstStart = min(firstStart ?? start, start)
        lastEnd = max(lastEnd ?? end, end)
        addByRequest(task, start: start, end: end)
        for transaction in task.transactionMetrics {
            summary.transactions += 1
            summary.bytesSent = summary.bytesSent.addingSaturated(transaction.bytesSent)
            summary.bytesReceived = summary.bytesReceived.addingSaturated(transaction.bytesReceived)
            if transaction.isReusedConnection { summary.reusedTransactions += 1 }
            for certificate in transaction.peerCertificates {
                guard let expiry = certificate.notAfter else { continue }
                if summary.earliestCertificateExpiry.map({ expiry < $0 }) ?? true { summary.earliestCertificateExpiry = expiry }
            }
            if let name = transaction.networkProtocolName { summary.protocols[name, default: 0] += 1 }
            if let status = transaction.response?.statusCode { summary.statusCodes[String(status), default: 0] += 1 }
            guard transaction.response != nil else { continue }
            let phases = transaction.phases
            let reused = transaction.isReusedConnection
            if reused { Self.record(phases, in: &warm) } else { Self.record(phases, in: &cold) }
            if let name = transaction.networkProtocolName {
                // In place: the dictionary's entry is mutated, never copied out and back.
                Self.record(phases, reused: reused, in: &byProtocol[name, default: (Self.noTable, Self.noTable)])
            }
        }
    }

    /// A task into its name's figures (the first `ProbeSummary.maxRequests` names).
    private mutating func addByRequest(_ task: ProbeTask, start: Timestamp, end: Timestamp) {
        let method = task.transactionMetrics.first?.request.method ?? "GET"
        if task.name == nil, let last = lastDefaultName, last.method == method, last.url == task.url {
            return Self.add(task, start: start, end: end, to: &requests[last.index])
        }
        // `task.requestName`, with the method found above.
        let name = task.name ?? RequestName.defaultName(method: method, url: task.url)
        let index: Int
        if let known = requestIndex[name] {
            index = known
        } else {
            guard requests.count < ProbeSummary.maxRequests else {
                summary.requestsOmitted = (summary.requestsOmitted ?? 0) + 1
                return
            }
            index = requests.count
            requestIndex[name] = index
            requests.append((ProbeSummary.RequestFigures(name: name, url: RequestName.withoutQuery(task.url), firstStart: start, lastEnd: end),
                             Self.noTable, Self.noTable))
        }
        if task.name == nil { lastDefaultName = (method, task.url, index) }
        // In place: the tables stay uniquely referenced, never copied.
        Self.add(task, start: start, end: end, to: &requests[index])
    }

    private static func add(_ task: ProbeTask, start: Timestamp, end: Timestamp,
                            to entry: inout (figures: ProbeSummary.RequestFigures, cold: [LatencyDistribution?], warm: [LatencyDistribution?])) {
        entry.figures.count += 1
        if let error = task.error {
            entry.figures.errors += 1
            entry.figures.errorsByCode[error.code.rawValue, default: 0] += 1
        }
        entry.figures.firstStart = min(entry.figures.firstStart, start)
        entry.figures.lastEnd = max(entry.figures.lastEnd, end)
        for transaction in task.transactionMetrics {
            entry.figures.transactions += 1
            if transaction.isReusedConnection { entry.figures.reusedTransactions += 1 }
            entry.figures.bytesSent = entry.figures.bytesSent.addingSaturated(transaction.bytesSent)
            entry.figures.bytesReceived = entry.figures.bytesReceived.addingSaturated(transaction.bytesReceived)
            if let name = transaction.networkProtocolName { entry.figures.protocols[name, default: 0] += 1 }
            guard transaction.response != nil else { continue }
            if transaction.isReusedConnection {
                record(transaction.phases, in: &entry.warm, precision: .coarse)
            } else {
                record(transaction.phases, in: &entry.cold, precision: .coarse)
            }
        }
    }

    private static func record(_ phases: Phases, reused: Bool,
                               in tables: inout (cold: [LatencyDistribution?], warm: [LatencyDistribution?])) {
        if reused { record(phases, in: &tables.warm) } else { record(phases, in: &tables.cold) }
    }

    /// Each phase that happened into its table (`table` in `Phases.names` order).
    private static func record(_ phases: Phases, in table: inout [LatencyDistribution?],
                               precision: LatencyDistribution.Precision = .fine) {
        for index in Self.phases.indices {
            guard let value = phases[Self.phases[index]] else { continue }
            record(value, at: index, in: &table, precision: precision)
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

    /// The cold and warm tables merged, phase by phase.
    private static func merged(_ cold: [LatencyDistribution?], _ warm: [LatencyDistribution?]) -> [LatencyDistribution?] {
        zip(cold, warm).map { cold, warm in
            guard var merged = cold else { return warm }
            if let warm { merged.add(warm) }
            return merged
        }
    }

    public var result: ProbeSummary {
        var result = summary
        result.all = Self.summaries(Self.merged(cold, warm))
        result.cold = Self.summaries(cold)
        result.warm = Self.summaries(warm)
        result.byProtocol = byProtocol.mapValues { ProbeSummary.ProtocolPhases(cold: Self.summaries($0.cold), warm: Self.summaries($0.warm)) }
        result.byRequest = requests.map { entry in
            var figures = entry.figures
            figures.all = Self.summaries(Self.merged(entry.cold, entry.warm))
            figures.cold = Self.summaries(entry.cold)
            figures.warm = Self.summaries(entry.warm)
            return figures
        }
        if let firstStart, let lastEnd {
            let durationMs = Double(lastEnd.microsecondsSince1970 &- firstStart.microsecondsSince1970) / 1000
            result.durationMs = durationMs
            result.requestsPerSecond = durationMs > 0 ? Double(summary.transactions) / (durationMs / 1000) : nil
        }
        return result
    }
}

extension TransactionMetrics {
    /// Request headers and body sent (bytes).
    public var bytesSent: Int64 { countOfRequestHeaderBytesSent.addingSaturated(countOfRequestBodyBytesSent) }
    /// Response headers and body received, as on the wire (before decoding; bytes).
    public var bytesReceived: Int64 { countOfResponseHeaderBytesReceived.addingSaturated(countOfResponseBodyBytesReceived) }
}
