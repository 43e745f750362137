/// One task of a probe run: a URL fetched once, with every redirect hop as its own transaction.
/// Named after `URLSessionTaskMetrics`.
public struct ProbeTask: Sendable, Equatable {
    /// The URL as the user gave it (redacted).
    public var url: String
    /// The request's name in the per-request results (`RequestName`): the one the user gave, or
    /// the method and the URL without its query. Set on every task sonde records; nil (and
    /// absent from the JSON) only in journals written before names existed, whose tasks go by
    /// their default name.
    public var name: String?
    /// 0 for the first run of this URL, 1 for the first repeat (`--count`), and so on.
    public var iteration: Int
    public var taskInterval: TaskInterval
    public var redirectCount: Int
    public var error: TaskError?
    public var transactionMetrics: [TransactionMetrics]
    /// The check of a `sonde run` suite the task belongs to; nil (and absent from the JSON) in
    /// runs without checks.
    public var check: String?
    /// The emulated link every transaction of the task crossed (its profile's name, as in
    /// `LinkConditions.profile`); nil (and absent from the JSON) on the machine's own network.
    public var link: String?

    public init(url: String, iteration: Int, taskInterval: TaskInterval, redirectCount: Int,
                error: TaskError?, transactionMetrics: [TransactionMetrics], check: String? = nil, link: String? = nil,
                name: String? = nil) {
        self.url = url
        self.name = name
        self.iteration = iteration
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.error = error
        self.transactionMetrics = transactionMetrics
        self.check = check
        self.link = link
    }
}

/// When a task started and how long it took, redirects included.
public struct TaskInterval: Sendable, Equatable {
    public var start: Timestamp
    /// Milliseconds, microsecond resolution.
    public var durationMs: Double
    public init(start: Timestamp, durationMs: Double) {
        self.start = start
        self.durationMs = durationMs
    }
}

extension ProbeTask: FieldModel {
    public static let blank = ProbeTask(url: "", iteration: 0, taskInterval: .blank, redirectCount: 0, error: nil, transactionMetrics: [])
    public static var schemaName: String? { "probeTask" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("check", &check, FieldRule(omitsNil: true, unit: .nonEmpty))
        try v.visit("link", &link, FieldRule(omitsNil: true, unit: .nonEmpty))
        try v.visit("name", &name, FieldRule(omitsNil: true, unit: .nonEmpty))
        try v.visit("url", &url, .required)
        try v.visit("iteration", &iteration, .requiredCount)
        try v.visit("taskInterval", &taskInterval, .required)
        try v.visit("redirectCount", &redirectCount, .requiredCount)
        try v.visit("error", &error, .field)
        try v.visit("transactionMetrics", &transactionMetrics, .required)
    }
}

extension ProbeTask {
    /// The task's name in the per-request results: its own, or (a journal written before names)
    /// its first transaction's method and its URL without the query.
    public var requestName: String {
        name ?? RequestName.defaultName(method: transactionMetrics.first?.request.method ?? "GET", url: url)
    }
}

extension TaskInterval: FieldModel {
    public static let blank = TaskInterval(start: Timestamp(microsecondsSince1970: 0), durationMs: 0)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("start", &start, .required)
        try v.visit("durationMs", &durationMs, .requiredMilliseconds)
    }
}
