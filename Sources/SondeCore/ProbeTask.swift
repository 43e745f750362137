/// One task of a probe run: a URL fetched once, with every redirect hop as its own transaction.
/// Named after `URLSessionTaskMetrics`.
public struct ProbeTask: Codable, Sendable, Equatable {
    /// The URL as the user gave it (redacted).
    public var url: String
    /// 0 for the first run of this URL, 1 for the first repeat (`--count`), and so on.
    public var iteration: Int
    public var taskInterval: TaskInterval
    public var redirectCount: Int
    public var error: TaskError?
    public var transactionMetrics: [TransactionMetrics]
    /// The check of a `sonde run` suite the task belongs to; nil (and absent from the JSON) in
    /// runs without checks.
    public var check: String?

    public init(url: String, iteration: Int, taskInterval: TaskInterval, redirectCount: Int,
                error: TaskError?, transactionMetrics: [TransactionMetrics], check: String? = nil) {
        self.url = url
        self.iteration = iteration
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.error = error
        self.transactionMetrics = transactionMetrics
        self.check = check
    }

    private enum CodingKeys: String, CodingKey { case check, url, iteration, taskInterval, redirectCount, error, transactionMetrics }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(check, forKey: .check)
        try c.encode(url, forKey: .url)
        try c.encode(iteration, forKey: .iteration)
        try c.encode(taskInterval, forKey: .taskInterval)
        try c.encode(redirectCount, forKey: .redirectCount)
        try c.encode(error, forKey: .error)
        try c.encode(transactionMetrics, forKey: .transactionMetrics)
    }
}

/// When a task started and how long it took, redirects included.
public struct TaskInterval: Codable, Sendable, Equatable {
    public var start: Timestamp
    /// Milliseconds, microsecond resolution.
    public var durationMs: Double
    public init(start: Timestamp, durationMs: Double) {
        self.start = start
        self.durationMs = durationMs
    }
}

extension ProbeTask: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            if let check { o.member("check", check) }
            o.member("url", url)
            o.member("iteration", iteration)
            o.member("taskInterval", taskInterval)
            o.member("redirectCount", redirectCount)
            o.member("error", error)
            o.member("transactionMetrics", transactionMetrics)
        }
    }
}

extension TaskInterval: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("start", start)
            o.member("durationMs", durationMs)
        }
    }
}
