/// Builds a `SoakReport` from what a soak journalled: its start, every attempt (an attempt is
/// journalled when it opens and again when it ends; the last version wins), the samples, the
/// idle-timeout findings. The same code runs at the end of a soak and when `sonde report`
/// rebuilds one from a killed run's journal, so the two cannot disagree. The kind extensions'
/// parts (`SoakPart`, a subscription's) are summed and judged by the parts it is given:
/// the attempts keep those parts only.
///
/// Memory: attempts are kept (one per connection attempt); RTTs go into HdrHistograms; the
/// timeline keeps at most `timelineConnections` × `timelinePoints` points.
public struct SoakReportBuilder: Sendable {
    public let url: String
    public let config: SoakConfig
    public let startedAt: Timestamp
    /// The check of a `sonde run` suite the soak belongs to (nil outside checks).
    public let check: String?
    /// The kind extensions' parts of a soak (`CheckKinds.soakParts`).
    public let parts: [any SoakPart]
    private var attempts: [AttemptKey: SoakAttempt] = [:]
    private var pingRTT = LatencyDistribution()
    private var echoRTT = LatencyDistribution()
    /// The gaps between a subprotocol's events (`SoakSamples.nextGaps`).
    private var eventGaps = LatencyDistribution()
    private var series: [Int: SoakReport.PingSeries] = [:]
    private var idleTimeout: IdleTimeoutFindings?

    static let timelineConnections = 20
    static let timelinePoints = 2000

    private struct AttemptKey: Hashable, Sendable {
        var connection: Int
        var attempt: Int
    }

    public init(url: String, config: SoakConfig, startedAt: Timestamp, check: String? = nil, parts: [any SoakPart] = []) {
        self.url = url
        self.config = config
        self.startedAt = startedAt
        self.check = check
        self.parts = parts
        partKeys = Set(parts.map(\.attemptKey))
    }

    /// The attempts' part keys the soak keeps.
    private let partKeys: Set<String>

    public mutating func add(_ attempt: SoakAttempt) {
        var attempt = attempt
        if !attempt.parts.isEmpty { attempt.parts = attempt.parts.keeping(partKeys) }
        attempts[AttemptKey(connection: attempt.connection, attempt: attempt.attempt)] = attempt
    }

    public mutating func add(_ samples: SoakSamples) {
        for sample in samples.pings where sample.count == 4 {
            pingRTT.record(milliseconds: Double(sample[3]) / 1000)
            let connection = Int(sample[0])
            if connection < Self.timelineConnections {
                var line = series[connection] ?? SoakReport.PingSeries(connection: connection)
                if line.points.count < Self.timelinePoints {
                    line.points.append([Double(sample[2]) / 1000, Double(sample[3]) / 1000])
                }
                series[connection] = line
            }
        }
        for sample in samples.missed where sample.count == 3 {
            let connection = Int(sample[0])
            if connection < Self.timelineConnections {
                var line = series[connection] ?? SoakReport.PingSeries(connection: connection)
                if line.missedAtMs.count < Self.timelinePoints { line.missedAtMs.append(Double(sample[2]) / 1000) }
                series[connection] = line
            }
        }
        for rtt in samples.echoes { echoRTT.record(milliseconds: Double(rtt) / 1000) }
        for gap in samples.nextGaps ?? [] { eventGaps.record(milliseconds: Double(gap) / 1000) }
    }

    public mutating func set(idleTimeout findings: IdleTimeoutFindings) {
        idleTimeout = findings
    }

    /// The report as of now; `finishedAt` nil for a run killed before it ended.
    ///
    /// Counting: an attempt that opened and then ended (other than by the run's end or a probe's
    /// planned close) is a disconnect, and begins an outage of its connection; the connection's
    /// next attempt that opens ends the outage: one reconnect, however many attempts it took.
    /// An attempt that never opened is a failed attempt, never a disconnect.
    public func result(finishedAt: Timestamp?) -> SoakReport {
        let ordered = attempts.values.sorted { ($0.connection, $0.attempt) < ($1.connection, $1.attempt) }
        var pings = SoakReport.PingSummary()
        var messages = SoakReport.MessageSummary()
        var reconnects = SoakReport.ReconnectSummary()
        var disconnects = SoakReport.DisconnectSummary()
        var recover = LatencyDistribution()
        var backoff: [Int: SoakReport.BackoffStep] = [:]
        /// Per connection in an outage: the cause of the disconnect that began it, and its timeline mark (if drawn).
        var outage: [Int: (cause: DisconnectCause, mark: Int?)] = [:]
        var opened = Set<Int>()
        var lastAttempt: [Int: SoakAttempt] = [:]
        var timeline = series
        var serverRate = (count: 0, seconds: 0.0)
        func sinceStart(_ time: Timestamp) -> Double {
            Double(time.microsecondsSince1970 &- startedAt.microsecondsSince1970) / 1000
        }
        func drawn(_ connection: Int, _ change: (inout SoakReport.PingSeries) -> Void) {
            guard connection < Self.timelineConnections else { return }
            var line = timeline[connection] ?? SoakReport.PingSeries(connection: connection)
            change(&line)
            timeline[connection] = line
        }
        for attempt in ordered {
            let connection = attempt.connection
            pings.add(attempt.pings)
            messages.add(attempt.messages)
            if let opened = attempt.openedAt, let closed = attempt.closedAt ?? finishedAt {
                // Journalled values: wrapping and Double arithmetic, so a damaged journal cannot trap.
                serverRate.count &+= attempt.messages.fromServer.count
                serverRate.seconds += max(0, Double(closed.microsecondsSince1970) - Double(opened.microsecondsSince1970)) / 1e6
            }
            if attempt.attempt > 1 { reconnects.attempts += 1 }
            if let openedAt = attempt.openedAt {
                if let down = outage.removeValue(forKey: connection) {
                    reconnects.count += 1
                    reconnects.byCause[down.cause.rawValue, default: 0] += 1
                    if let ms = attempt.timeToRecoverMs { recover.record(milliseconds: ms) }
                    if let mark = down.mark { drawn(connection) { $0.disconnects[mark].recoveredAtMs = sinceStart(openedAt) } }
                }
                if let cause = attempt.cause {
                    disconnects.byCause[cause.rawValue, default: 0] += 1
                    if cause != .runEnded && cause != .probeFinished {
                        if let code = attempt.closeCode { disconnects.byCloseCode[String(code), default: 0] += 1 }
                        var mark: Int?
                        if let closed = attempt.closedAt {
                            drawn(connection) { line in
                                mark = line.disconnects.count
                                line.disconnects.append(.init(atMs: sinceStart(closed), cause: cause.rawValue, closeCode: attempt.closeCode))
                            }
                        }
                        outage[connection] = (cause, mark)
                    }
                }
            } else if attempt.cause != nil {
                reconnects.failedAttempts[attempt.error?.code.rawValue ?? DisconnectCause.handshakeFailure.rawValue, default: 0] += 1
                drawn(connection) { line in
                    if line.failedAttemptsAtMs.count < Self.timelinePoints {
                        line.failedAttemptsAtMs.append(sinceStart(attempt.closedAt ?? attempt.startedAt))
                    }
                }
            }
            if let failure = attempt.backoffFailure, let delay = attempt.backoffMs {
                let range = config.backoff.bounds(failure: failure)
                var step = backoff[failure] ?? SoakReport.BackoffStep(
                    failure: failure, policyMinMs: range.lowerBound, policyMaxMs: range.upperBound,
                    count: 0, minMs: delay, maxMs: delay, examplesMs: [])
                step.count += 1
                step.minMs = min(step.minMs, delay)
                step.maxMs = max(step.maxMs, delay)
                if step.examplesMs.count < 20 { step.examplesMs.append(delay) }
                backoff[failure] = step
            }
            if attempt.openedAt != nil { opened.insert(connection) }
            lastAttempt[connection] = attempt
        }
        if serverRate.seconds > 0 { messages.fromServer.ratePerSecond = Double(serverRate.count) / serverRate.seconds }
        pings.rttMs = pingRTT.summary
        messages.rttMs = echoRTT.summary
        reconnects.timeToRecoverMs = recover.summary
        let upAtEnd = lastAttempt.values.filter { $0.openedAt != nil && ($0.cause == nil || $0.cause == .runEnded) }.count
        let gaveUp = lastAttempt.values.filter(\.gaveUp).count

        var problems: [String] = []
        if gaveUp > 0 {
            problems.append("\(gaveUp) connection\(gaveUp == 1 ? "" : "s") gave up after \(config.maxAttempts ?? 0) failed attempts in a row")
        }
        let neverOpened = lastAttempt.count - opened.count + max(0, config.connections - lastAttempt.count)
        if neverOpened > 0 && finishedAt != nil {
            problems.append("\(neverOpened) connection\(neverOpened == 1 ? "" : "s") never opened")
        }
        if messages.corrupted > 0 {
            problems.append("\(messages.corrupted) echoed message\(messages.corrupted == 1 ? " was" : "s were") corrupted")
        }
        var soakParts = ModelParts()
        let gaps = eventGaps.summary
        for part in parts {
            guard let summary = part.summary(config: config, attempts: ordered, eventGapsMs: gaps) else { continue }
            soakParts.set(part.summaryKey, summary.part)
            if let problem = summary.problem { problems.append(problem) }
        }
        let lines = timeline.values.sorted { $0.connection < $1.connection }.map { line -> SoakReport.PingSeries in
            var line = line
            line.points = Self.thinned(line.points, to: 500)
            return line
        }
        return SoakReport(
            url: url, config: config, connections: config.connections, startedAt: startedAt, finishedAt: finishedAt,
            attempts: ordered, pings: pings, messages: messages, reconnects: reconnects, disconnects: disconnects,
            backoffSchedule: backoff.values.sorted { $0.failure < $1.failure }, upAtEnd: upAtEnd, gaveUp: gaveUp,
            idleTimeout: idleTimeout, timeline: lines, passed: problems.isEmpty, problems: problems, check: check, parts: soakParts)
    }

    /// Keeps at most `limit` points, evenly spread, always keeping the highest RTT of each stride
    /// so spikes stay visible.
    static func thinned(_ points: [[Double]], to limit: Int) -> [[Double]] {
        guard points.count > limit, limit > 0 else { return points }
        let stride = (points.count + limit - 1) / limit
        return Swift.stride(from: 0, to: points.count, by: stride).map { start in
            points[start..<min(start + stride, points.count)].max { $0[1] < $1[1] }!
        }
    }
}

extension SoakReport.PingSummary {
    /// Adds one attempt's counts.
    mutating func add(_ counts: SoakAttempt.Pings) {
        sent += counts.sent
        answered += counts.answered
        missed += counts.missed
        unanswered += counts.unanswered
        unsolicitedPongs += counts.unsolicitedPongs
        serverPings += counts.serverPings
    }
}

extension SoakReport.MessageSummary {
    /// Adds one attempt's counts.
    mutating func add(_ counts: SoakAttempt.Messages) {
        sent += counts.sent
        received += counts.received
        lost += counts.lost
        duplicated += counts.duplicated
        reordered += counts.reordered
        corrupted += counts.corrupted
        fromServer.count &+= counts.fromServer.count
        fromServer.bytes &+= counts.fromServer.bytes
    }
}
