import Foundation
import SondeSuite

/// Runs scheduled checks, each every `every` seconds from a small random offset (so that checks
/// declared together do not start together), never two runs of one check at once (also across a
/// reload), and at most `parallel` runs at once. A run due while the slots are full waits: its
/// lateness is recorded. A run that overran its next start skips the starts it missed (counted),
/// it does not queue them. A hung check holds its own loop and one slot, never the others.
///
/// Threading: `start`, `stop` from any task; `run` and `onResult` are called from the scheduler's
/// tasks, which prefer `executor` when one is given (else Swift's global executor).
public final class CheckScheduler: Sendable {
    public typealias RunCheck = @Sendable (ScheduledCheck) async -> CheckRunRecord
    public typealias OnResult = @Sendable (CheckRunRecord, _ skipped: Int) -> Void

    private let run: RunCheck
    private let onResult: OnResult
    private let state: State
    private let executor: (any TaskExecutor)?

    /// The most a first run waits for its offset (s).
    public static let maxOffset = 30.0

    /// - Parameter executor: where the schedule's tasks prefer to run; nil for Swift's global
    ///   executor. A test process whose other tests hold the global pool's threads gives its own.
    public init(run: @escaping RunCheck, onResult: @escaping OnResult, executor: (any TaskExecutor)? = nil) {
        self.run = run
        self.onResult = onResult
        self.state = State()
        self.executor = executor
    }

    /// Starts `checks` (a reload calls it again: the loops of the previous config stop at their
    /// next wait; a run under way finishes first, and the same check's next run waits for it).
    public func start(_ checks: [ScheduledCheck], parallel: Int) async {
        let slots = AsyncSlots(limit: parallel)
        let loops = checks.map { check in
            Task(executorPreference: executor) { [run, onResult, state, executor] in
                await Self.loop(check, slots: slots, state: state, executor: executor, run: run, onResult: onResult)
            }
        }
        await state.replace(loops)
    }

    /// Stops scheduling and waits for the runs under way (which a signal has usually told to end).
    public func stop() async {
        await state.replace([])
        await state.waitIdle()
    }

    /// Runs under way now.
    public func running() async -> [String] { await state.runningNames() }

    private static func loop(_ check: ScheduledCheck, slots: AsyncSlots, state: State, executor: (any TaskExecutor)?,
                             run: @escaping RunCheck, onResult: OnResult) async {
        let name = check.check.name
        let offset = Double.random(in: 0..<max(0.001, min(check.every / 10, maxOffset)))
        var due = Date().timeIntervalSince1970 + offset
        while !Task.isCancelled {
            let wait = due - Date().timeIntervalSince1970
            if wait > 0 {
                do { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) } catch { return }
            }
            do { try await slots.acquire() } catch { return }
            // A run of this check from before a reload may still be under way.
            guard await state.begin(name) else {
                await slots.release()
                return
            }
            // Its own task: a reload (which cancels this loop) never cuts a run short.
            var record = await Task(executorPreference: executor) { await run(check) }.value
            await state.end(name)
            await slots.release()
            record.lateness = max(0, record.startedAt - due)
            let now = Date().timeIntervalSince1970
            due += check.every
            var skipped = 0
            if due < now {
                skipped = Int(((now - due) / check.every).rounded(.down)) + 1
                due += Double(skipped) * check.every
            }
            onResult(record, skipped)
        }
    }

    /// The loops of the config in force, and the checks running.
    private actor State {
        private var loops: [Task<Void, Never>] = []
        private var running: Set<String> = []

        func replace(_ new: [Task<Void, Never>]) {
            for loop in loops { loop.cancel() }
            loops = new
        }

        /// Marks `name` running; waits (polling, bounded by the run under way) while a run of it is.
        /// False when the waiting task was cancelled.
        func begin(_ name: String) async -> Bool {
            while running.contains(name) {
                do { try await Task.sleep(nanoseconds: 50_000_000) } catch { return false }
            }
            running.insert(name)
            return true
        }

        func end(_ name: String) { running.remove(name) }

        func runningNames() -> [String] { running.sorted() }

        func waitIdle() async {
            while !running.isEmpty {
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
        }
    }
}
