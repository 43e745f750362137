extension ProbeSummary {
    /// One URL's tasks of a check over an emulated link (`summary.byURL[url]`), so that the
    /// protocols of a suite compare URL by URL (a 1 KiB fetch and a 2 MiB fetch pooled give a
    /// median of neither), and the span of its tasks (first start, last end), from which a check's
    /// batch wall time follows: it counts the time tasks waited for a connection (`--parallel`)
    /// that their phases do not.
    ///
    /// Kept only for tasks that crossed a link, for the first `ProbeSummary.maxURLs` URLs of a
    /// summary (`urlsOmitted` counts the tasks of the rest); distributions at 1 % precision
    /// (`LatencyDistribution.Precision.coarse`). Times in milliseconds.
    public struct URLFigures: Sendable, Equatable {
        public var tasks = 0
        public var failedTasks = 0
        /// Transactions per protocol (`networkProtocolName`).
        public var protocols: [String: Int] = [:]
        /// Per phase, over the URL's cold and warm transactions with a response.
        public var cold: [String: DistributionSummary] = [:]
        public var warm: [String: DistributionSummary] = [:]
        /// The earliest start and the latest end of the URL's tasks.
        public var firstStart: Timestamp
        public var lastEnd: Timestamp

        public init(firstStart: Timestamp, lastEnd: Timestamp) {
            self.firstStart = firstStart
            self.lastEnd = lastEnd
        }
    }

    /// The most URLs a summary keeps figures for (`byURL`).
    public static let maxURLs = 32
}

extension ProbeSummary.URLFigures: FieldModel {
    public static let blank = ProbeSummary.URLFigures(firstStart: Timestamp(microsecondsSince1970: 0), lastEnd: Timestamp(microsecondsSince1970: 0))

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("tasks", &tasks, .requiredCount)
        try v.visit("failedTasks", &failedTasks, .requiredCount)
        try v.visit("protocols", &protocols, .requiredCount)
        try v.visit("cold", &cold, .required)
        try v.visit("warm", &warm, .required)
        try v.visit("firstStart", &firstStart, .required)
        try v.visit("lastEnd", &lastEnd, .required)
    }
}
