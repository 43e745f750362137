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
    /// The soonest `notAfter` among the peer certificates seen (null when no TLS was used).
    public var earliestCertificateExpiry: Timestamp?
    /// Phase distributions over every transaction with a response (cold and warm together).
    public var all: [String: DistributionSummary] = [:]
    public var cold: [String: DistributionSummary] = [:]
    /// Per phase name, the distribution over warm transactions.
    public var warm: [String: DistributionSummary] = [:]

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case tasks, failedTasks, transactions, reusedTransactions, errorsByCode, protocols, statusCodes
        case earliestCertificateExpiry, all, cold, warm
    }

    /// Explicit so that an absent `earliestCertificateExpiry` is written as null, as the schema wants.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tasks, forKey: .tasks)
        try c.encode(failedTasks, forKey: .failedTasks)
        try c.encode(transactions, forKey: .transactions)
        try c.encode(reusedTransactions, forKey: .reusedTransactions)
        try c.encode(errorsByCode, forKey: .errorsByCode)
        try c.encode(protocols, forKey: .protocols)
        try c.encode(statusCodes, forKey: .statusCodes)
        try c.encode(earliestCertificateExpiry, forKey: .earliestCertificateExpiry)
        try c.encode(all, forKey: .all)
        try c.encode(cold, forKey: .cold)
        try c.encode(warm, forKey: .warm)
    }
}

/// Builds a `ProbeSummary` from tasks, one at a time.
public struct ProbeSummaryBuilder: Sendable {
    private var summary = ProbeSummary()
    private var all: [String: LatencyDistribution] = [:]
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
            for certificate in transaction.peerCertificates {
                guard let expiry = certificate.notAfter else { continue }
                if summary.earliestCertificateExpiry.map({ expiry < $0 }) ?? true { summary.earliestCertificateExpiry = expiry }
            }
            if let name = transaction.networkProtocolName { summary.protocols[name, default: 0] += 1 }
            if let status = transaction.response?.statusCode { summary.statusCodes[String(status), default: 0] += 1 }
            guard transaction.response != nil else { continue }
            for name in Phases.names {
                guard let value = transaction.phases.value(named: name) else { continue }
                all[name, default: LatencyDistribution()].record(milliseconds: value)
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
        result.all = all.compactMapValues(\.summary)
        result.cold = cold.compactMapValues(\.summary)
        result.warm = warm.compactMapValues(\.summary)
        return result
    }
}
