extension ProbeSummary {
    /// One request's tasks (`summary.byRequest[]`): the tasks of one name (`RequestName`: the
    /// name the user gave, else the method and the URL without its query), so that the endpoints
    /// of a run are told apart (a 2 ms health check and a 300 ms login pooled give a median of
    /// neither): counts, errors, phase distributions, bytes each way, and the span of its tasks
    /// (first start, last end), from which a batch's wall time follows (it counts the time tasks
    /// waited for a connection, `--parallel`, that their phases do not; the link comparison reads it).
    ///
    /// Kept for the first `ProbeSummary.maxRequests` names of a summary, in the order each was
    /// first seen (`requestsOmitted` counts the tasks of the rest); distributions at 1 % precision
    /// (`LatencyDistribution.Precision.coarse`). Times in milliseconds, bytes as on the wire.
    public struct RequestFigures: Sendable, Equatable {
        public var name: String
        /// The URL of the name's first task, without its query and fragment (redacted).
        public var url: String
        /// Tasks, and those that ended in an error.
        public var count = 0
        public var errors = 0
        /// Errors by code (`TaskError.Code`).
        public var errorsByCode: [String: Int] = [:]
        /// Transactions (redirect hops included), and those on a reused connection.
        public var transactions = 0
        public var reusedTransactions = 0
        /// Transactions per protocol (`networkProtocolName`).
        public var protocols: [String: Int] = [:]
        /// Per phase, over the name's transactions with a response: all of them, cold ones, warm ones.
        public var all: [String: DistributionSummary] = [:]
        public var cold: [String: DistributionSummary] = [:]
        public var warm: [String: DistributionSummary] = [:]
        /// Request headers and body sent, response headers and body received (before decoding).
        public var bytesSent: Int64 = 0
        public var bytesReceived: Int64 = 0
        /// The earliest start and the latest end of the name's tasks.
        public var firstStart: Timestamp
        public var lastEnd: Timestamp

        public init(name: String, url: String, firstStart: Timestamp, lastEnd: Timestamp) {
            self.name = name
            self.url = url
            self.firstStart = firstStart
            self.lastEnd = lastEnd
        }
    }

    /// The most names a summary keeps figures for (`byRequest`).
    public static let maxRequests = 64
}

extension ProbeSummary.RequestFigures {
    /// Whether the name is the default one (a method and `url`), not one the user gave.
    public var hasDefaultName: Bool {
        name == RequestName.defaultName(method: String(name.prefix { $0 != " " }), url: url)
    }
}

/// Keys in the sorted order `JSONEncoder` writes.
extension ProbeSummary.RequestFigures: FieldModel {
    public static let blank = ProbeSummary.RequestFigures(name: "", url: "", firstStart: Timestamp(microsecondsSince1970: 0),
                                                          lastEnd: Timestamp(microsecondsSince1970: 0))
    public static var schemaName: String? { "requestFigures" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("all", &all, .required)
        try v.visit("bytesReceived", &bytesReceived, .requiredCount)
        try v.visit("bytesSent", &bytesSent, .requiredCount)
        try v.visit("cold", &cold, .required)
        try v.visit("count", &count, .requiredCount)
        try v.visit("errors", &errors, .requiredCount)
        try v.visit("errorsByCode", &errorsByCode, .requiredCount)
        try v.visit("firstStart", &firstStart, .required)
        try v.visit("lastEnd", &lastEnd, .required)
        try v.visit("name", &name, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("protocols", &protocols, .requiredCount)
        try v.visit("reusedTransactions", &reusedTransactions, .requiredCount)
        try v.visit("transactions", &transactions, .requiredCount)
        try v.visit("url", &url, .required)
        try v.visit("warm", &warm, .required)
    }
}
