/// Aggregates of a probe run, built incrementally as tasks complete (constant memory).
///
/// "cold" transactions opened a new connection; "warm" ones reused one. That is the honest
/// split: with `--no-reuse` every transaction is cold, and a server that closes keep-alive
/// connections turns repeats cold too.
public struct ProbeSummary: Codable, Sendable {
    public var tasks = 0
    public var failedTasks = 0
    public var transactions = 0
    public var reusedTransactions = 0
    public var errorsByCode: [String: Int] = [:]
    public var protocols: [String: Int] = [:]
    public var statusCodes: [String: Int] = [:]
    /// Per phase name, the distribution over cold transactions.
    public var cold: [String: DistributionSummary] = [:]
    /// Per phase name, the distribution over warm transactions.
    public var warm: [String: DistributionSummary] = [:]

    public init() {}
}

/// Builds a `ProbeSummary` from tasks, one at a time.
public struct ProbeSummaryBuilder: Sendable {
    private var summary = ProbeSummary()
    private var cold: [String: LatencyDistribution] = [:]
    private var warm: [String: LatencyDistribution] = [:]

    public init() {}

    public mutating func add(_ task: ProbeTask) {
        summary.tasks += 1
        if let error = task.error {
            summary.failedTasks += 1
            summary.errorsByCode[error.code.rawValue, default: 0] += 1
        }
        for transaction in task.transactionMetrics {
            summary.transactions += 1
            if transaction.isReusedConnection { summary.reusedTransactions += 1 }
            if let name = transaction.networkProtocolName { summary.protocols[name, default: 0] += 1 }
            if let status = transaction.response?.statusCode { summary.statusCodes[String(status), default: 0] += 1 }
            guard transaction.response != nil else { continue }
            for name in Phases.names {
                guard let value = transaction.phases.value(named: name) else { continue }
                if transaction.isReusedConnection {
                    warm[name, default: LatencyDistribution()].record(milliseconds: value)
                } else {
                    cold[name, default: LatencyDistribution()].record(milliseconds: value)
                }
            }
        }
    }

    public var result: ProbeSummary {
        var result = summary
        result.cold = cold.compactMapValues(\.summary)
        result.warm = warm.compactMapValues(\.summary)
        return result
    }
}
