/// The soak report's fields, declared once (`FieldModel`). Keys in the sorted order `JSONEncoder`
/// writes; `check` is left out outside checks.

extension SoakReport: FieldModel {
    public static let blank = SoakReport(url: "", config: .blank, connections: 0, startedAt: TaskInterval.blank.start, finishedAt: nil,
                                         attempts: [], pings: PingSummary(), messages: MessageSummary(), reconnects: ReconnectSummary(),
                                         disconnects: DisconnectSummary(), backoffSchedule: [], upAtEnd: 0, gaveUp: 0, idleTimeout: nil,
                                         timeline: [], passed: false, problems: [])
    public static var schemaName: String? { "soak" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("attempts", &attempts, .required)
        try v.visit("backoffSchedule", &backoffSchedule, .required)
        try v.visit("check", &check, FieldRule(omitsNil: true, unit: .nonEmpty))
        try v.visit("config", &config, .required)
        try v.visit("connections", &connections, FieldRule(required: true, unit: .identifier))
        try v.visit("disconnects", &disconnects, .required)
        try v.visit("finishedAt", &finishedAt, .field)
        try v.visit("gaveUp", &gaveUp, .requiredCount)
        try v.visit("idleTimeout", &idleTimeout, .field)
        try v.visit("messages", &messages, .required)
        try v.visit("passed", &passed, .required)
        try v.visit("pings", &pings, .required)
        try v.visit("problems", &problems, .required)
        try v.visit("reconnects", &reconnects, .required)
        try v.visit("startedAt", &startedAt, .required)
        try v.visit("timeline", &timeline, .required)
        try v.visit("upAtEnd", &upAtEnd, .requiredCount)
        try v.visit("url", &url, .required)
        try v.visitParts(&parts)
    }
}

extension SoakReport.PingSummary: FieldModel {
    public static let blank = SoakReport.PingSummary()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("answered", &answered, .requiredCount)
        try v.visit("missed", &missed, .requiredCount)
        try v.visit("rttMs", &rttMs, .field)
        try v.visit("sent", &sent, .requiredCount)
        try v.visit("serverPings", &serverPings, .requiredCount)
        try v.visit("unanswered", &unanswered, .requiredCount)
        try v.visit("unsolicitedPongs", &unsolicitedPongs, .requiredCount)
    }
}

extension SoakReport.MessageSummary: FieldModel {
    public static let blank = SoakReport.MessageSummary()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("corrupted", &corrupted, .requiredCount)
        try v.visit("duplicated", &duplicated, .requiredCount)
        try v.visit("fromServer", &fromServer, .field)
        try v.visit("lost", &lost, .requiredCount)
        try v.visit("received", &received, .requiredCount)
        try v.visit("reordered", &reordered, .requiredCount)
        try v.visit("rttMs", &rttMs, .field)
        try v.visit("sent", &sent, .requiredCount)
    }
}

extension SoakReport.ServerMessageSummary: FieldModel {
    public static let blank = SoakReport.ServerMessageSummary()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("bytes", &bytes, .requiredCount)
        try v.visit("count", &count, .requiredCount)
        try v.visit("ratePerSecond", &ratePerSecond, FieldRule(unit: .nonNegative))
    }
}

extension SoakReport.ReconnectSummary: FieldModel {
    public static let blank = SoakReport.ReconnectSummary()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("attempts", &attempts, .requiredCount)
        try v.visit("byCause", &byCause, .requiredCount)
        try v.visit("count", &count, .requiredCount)
        try v.visit("failedAttempts", &failedAttempts, FieldRule(unit: .identifier))
        try v.visit("timeToRecoverMs", &timeToRecoverMs, .field)
    }
}

extension SoakReport.DisconnectSummary: FieldModel {
    public static let blank = SoakReport.DisconnectSummary()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("byCause", &byCause, .requiredCount)
        try v.visit("byCloseCode", &byCloseCode, .requiredCount)
    }
}

extension SoakReport.BackoffStep: FieldModel {
    public static let blank = SoakReport.BackoffStep(failure: 0, policyMinMs: 0, policyMaxMs: 0, count: 0, minMs: 0, maxMs: 0, examplesMs: [])

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("count", &count, .requiredCount)
        try v.visit("examplesMs", &examplesMs, .requiredMilliseconds)
        try v.visit("failure", &failure, FieldRule(required: true, unit: .identifier))
        try v.visit("maxMs", &maxMs, .requiredMilliseconds)
        try v.visit("minMs", &minMs, .requiredMilliseconds)
        try v.visit("policyMaxMs", &policyMaxMs, .requiredMilliseconds)
        try v.visit("policyMinMs", &policyMinMs, .requiredMilliseconds)
    }
}

extension SoakReport.PingSeries: FieldModel {
    public static let blank = SoakReport.PingSeries(connection: 0)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("connection", &connection, .requiredCount)
        try v.visit("disconnects", &disconnects, .field)
        try v.visit("failedAttemptsAtMs", &failedAttemptsAtMs, .field)
        try v.visit("missedAtMs", &missedAtMs, .field)
        try v.visit("points", &points, .field)
    }
}

extension SoakReport.PingSeries.Disconnect: FieldModel {
    public static let blank = SoakReport.PingSeries.Disconnect(atMs: 0, cause: "", closeCode: nil)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("atMs", &atMs, .requiredMilliseconds)
        try v.visit("cause", &cause, .required)
        try v.visit("closeCode", &closeCode, .field)
        try v.visit("recoveredAtMs", &recoveredAtMs, .milliseconds)
    }
}

extension SoakConfig: FieldModel {
    public static let blank = SoakConfig(durationS: 0, connections: 0, rampS: 0, pingIntervalS: 0, pongTimeoutS: 0, messageRate: 0, messageSize: 0,
                                         subprotocols: [], headers: [], backoff: BackoffPolicy(), stableAfterS: 0, maxAttempts: nil,
                                         connectTimeoutS: 0, insecure: false)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("backoff", &backoff, .required)
        try v.visit("connectTimeoutS", &connectTimeoutS, .required)
        try v.visit("connections", &connections, .required)
        try v.visit("durationS", &durationS, .required)
        try v.visit("headers", &headers, .required)
        try v.visit("insecure", &insecure, .required)
        try v.visit("maxAttempts", &maxAttempts, .field)
        try v.visit("messageRate", &messageRate, .required)
        try v.visit("messageSize", &messageSize, .required)
        try v.visit("pingIntervalS", &pingIntervalS, .required)
        try v.visit("pongTimeoutS", &pongTimeoutS, .required)
        try v.visit("rampS", &rampS, .required)
        try v.visit("stableAfterS", &stableAfterS, .required)
        try v.visit("subprotocols", &subprotocols, .required)
        try v.visitParts(&parts)
    }
}

extension BackoffPolicy: FieldModel {
    public static let blank = BackoffPolicy()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("initialMs", &initialMs, .required)
        try v.visit("jitter", &jitter, .required)
        try v.visit("maxMs", &maxMs, .required)
        try v.visit("multiplier", &multiplier, .required)
    }
}

extension IdleTimeoutFindings: FieldModel {
    public static let blank = IdleTimeoutFindings(maxIdleS: 0, longestSurvivedS: nil, shortestCutS: nil, cutBy: nil, probes: [])

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("cutBy", &cutBy, .field)
        try v.visit("longestSurvivedS", &longestSurvivedS, .field)
        try v.visit("maxIdleS", &maxIdleS, .required)
        try v.visit("probes", &probes, .required)
        try v.visit("shortestCutS", &shortestCutS, .field)
    }
}

extension IdleTimeoutFindings.Probe: FieldModel {
    public static let blank = IdleTimeoutFindings.Probe(plannedS: 0, survived: false, cutAfterS: nil, cause: nil, closeCode: nil)

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("cause", &cause, .field)
        try v.visit("closeCode", &closeCode, .field)
        try v.visit("cutAfterS", &cutAfterS, .field)
        try v.visit("plannedS", &plannedS, .required)
        try v.visit("survived", &survived, .required)
    }
}

extension DistributionSummary: FieldModel {
    public static let blank = DistributionSummary(count: 0, min: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0, mean: 0)
    public static var schemaName: String? { "distribution" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("count", &count, FieldRule(required: true, unit: .identifier))
        try v.visit("max", &max, .required)
        try v.visit("mean", &mean, .required)
        try v.visit("min", &min, .required)
        try v.visit("p50", &p50, .required)
        try v.visit("p90", &p90, .required)
        try v.visit("p95", &p95, .required)
        try v.visit("p99", &p99, .required)
    }
}
