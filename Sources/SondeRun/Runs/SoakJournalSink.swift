import Foundation
import SondeCore
import SondeSuite
import SondeReport
import SondeWebSocket
import Synchronization

/// Receives the soak engine's events (from NIO's threads) and feeds the run's recorder: an
/// attempt is journalled at once, samples are batched into one journal line per `flush` (the
/// session calls it every second). Also keeps the few live counters the status line shows.
///
/// Threading: every method takes `lock`; the recorder is touched only under it.
final class SoakJournalSink: SoakEventSink, @unchecked Sendable {
    private let lock = Mutex(())
    private let recorder: RunRecorder
    private var samples = SoakSamples()
    private var failure: TaskError?
    /// Set by `close`: the recorder belongs to the session again, later events are dropped.
    private var closed = false
    private var open = Set<Int>()
    private var reconnects = 0
    private var lost = 0
    private var missed = 0
    private var liveRTT = LatencyDistribution()

    /// The check whose soak this is (a suite's), nil outside checks.
    private let check: String?

    init(recorder: RunRecorder, check: String? = nil) {
        self.recorder = recorder
        self.check = check
    }

    func attempt(_ attempt: SoakAttempt) {
        lock.withLock { _ in
            if attempt.openedAt != nil && attempt.cause == nil {
                // An open attempt comes again in every journal snapshot: count its reconnect once.
                // A reconnect is a recovery from a disconnect (it has a time to recover), as in the report.
                if open.insert(attempt.connection).inserted && attempt.timeToRecoverMs != nil { reconnects += 1 }
            } else {
                open.remove(attempt.connection)
                lost += attempt.messages.lost
            }
            guard failure == nil, !closed else { return }
            do throws(TaskError) { try recorder.record(attempt: attempt, check: check) } catch { failure = error }
        }
    }

    func ping(connection: Int, attempt: Int, atMicros: Int64, rttMicros: Int64) {
        lock.withLock { _ in
            samples.pings.append([Int64(connection), Int64(attempt), atMicros, rttMicros])
            liveRTT.record(milliseconds: Double(rttMicros) / 1000)
        }
    }

    func missedPing(connection: Int, attempt: Int, atMicros: Int64) {
        lock.withLock { _ in
            samples.missed.append([Int64(connection), Int64(attempt), atMicros])
            missed += 1
        }
    }

    func echo(rttMicros: Int64) {
        lock.withLock { _ in
            samples.echoes.append(rttMicros)
        }
    }

    func eventGap(micros: Int64) {
        lock.withLock { _ in
            samples.nextGaps = (samples.nextGaps ?? []) + [micros]
        }
    }

    /// Journals the samples gathered since the last call and flushes the journal if due.
    func flush() {
        lock.withLock { _ in
            guard failure == nil, !closed else { return }
            let batch = samples
            samples = SoakSamples()
            do throws(TaskError) {
                try recorder.record(samples: batch, check: check)
                try recorder.flushIfDue()
            } catch {
                failure = error
            }
        }
    }

    /// Journals what is left and stops recording (before the session finishes the run).
    func close() {
        flush()
        lock.withLock { _ in
            closed = true
        }
    }

    /// Records a failure of the session's own journalling (the first one wins).
    func fail(_ error: TaskError) {
        lock.withLock { _ in
            if failure == nil { failure = error }
        }
    }

    /// The first recording failure (e.g. the disk is full); the soak stops on it.
    var recordingFailure: TaskError? {
        lock.withLock { _ in
            return failure
        }
    }

    /// One status line: connections up, reconnects, ping p50/p99, missed pongs, lost messages.
    func status(connections: Int) -> String {
        lock.withLock { _ in
            var line = "up \(open.count)/\(connections) · reconnects \(reconnects)"
            if let rtt = liveRTT.summary {
                line += " · ping p50 \(String(format: "%.2f", rtt.p50)) ms p99 \(String(format: "%.2f", rtt.p99)) ms"
            }
            if missed > 0 { line += " · missed pongs \(missed)" }
            if lost > 0 { line += " · lost \(lost)" }
            return line
        }
    }
}
