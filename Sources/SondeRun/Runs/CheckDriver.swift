import Foundation
import Synchronization
import SondeCapture
import SondeCore
import SondeSuite
import SondeReport

/// The one driver of every command that runs checks (probe, soak, resume, demo, run) over the
/// run's lifecycle (`RunLifecycle`): engines prepared before any folder exists, the folder and
/// recorder opened, the capture started, the signal scope, each check in order (bracketed by
/// the recorder's `beginCheck`/`endCheck` when it has a name), the status by the one rule, the
/// report and the terminal's end.
///
/// A Ctrl-C ends the check under way; the checks after it do not start; the report holds what ran (130).
public struct CheckDriver: Sendable {
    let command: String
    let arguments: [String]
    let settings: RunSettings
    /// `--capture`, nil without.
    var capture: CaptureSession.Mode?
    /// Checks run at once at most (a suite's `parallel`); 1 runs them in order.
    var parallel = 1
    /// Inside `sonde serve`: the run writes its folder and nothing on stdout.
    var quiet = false
    /// Ends this run alone (a scheduled check's time limit); signals end every run anyway.
    var stop = StopSwitch()

    public init(command: String, arguments: [String], settings: RunSettings, capture: CaptureSession.Mode? = nil, parallel: Int = 1,
                quiet: Bool = false, stop: StopSwitch = StopSwitch()) {
        self.command = command
        self.arguments = arguments
        self.settings = settings
        self.capture = capture
        self.parallel = parallel
        self.quiet = quiet
        self.stop = stop
    }

    /// How a run ended: its exit status, and the report as written (nil when no report was written).
    public struct Ended: Sendable {
        public var status: ExitStatus
        public var finished: RunOutcome?
        /// The run folder, nil when none was made or it was removed (a run given up before its work).
        public var folder: String?
    }

    /// How one check went, for the run.
    struct CheckRun: Sendable {
        var outcome: CheckOutcome?
        /// Some of the check's work failed, or (in a suite) the check ended with an error.
        var failedWork = false
        /// What stops the whole run: the recorder refused a check's bracket, or a plain command's check ended with an error.
        var runError: TaskError?
        /// What stopped a named check itself (its end line's error).
        var checkError: TaskError?
        /// False when the begin line could not be written (then no end line is either).
        var bracketOpen = true
        /// The check's emulated link with its counters, after it stopped.
        var link: LinkUse?
    }

    /// Runs one check, bracketed by the recorder's `beginCheck`/`endCheck` when it has a name,
    /// over its emulated link when it has one (up from before the bracket to after it).
    /// - Parameter upLink: the check's link when the driver brought it up already (a captured
    ///   single check); the driver then also stops it.
    private func run(_ check: PlannedCheck, in lifecycle: RunLifecycle, _ context: CheckContext, upLink: CheckLink? = nil) async -> CheckRun {
        var context = context
        var linkFailure: TaskError?
        if let upLink {
            context.link = upLink
        } else if let profile = check.link {
            do throws(TaskError) { context.link = try CheckLink.start(profile, targets: check.runner.targets) } catch { linkFailure = error }
        }
        var ran = await bracketed(check, in: lifecycle, context, linkFailure: linkFailure)
        if upLink == nil, let link = context.link { ran.link = link.stop() }
        if let name = check.name, ran.bracketOpen {
            do throws(TaskError) {
                try lifecycle.recorder.endCheck(name, error: ran.checkError, interrupted: lifecycle.interrupted, timedOut: lifecycle.timedOut,
                                                link: ran.link ?? context.link?.started)
            } catch {
                ran.failedWork = true
                if ran.runError == nil { ran.runError = error }
            }
            if lifecycle.terminal, let link = ran.link { printLine(context.linePrefix + RunSettings.terminalRenderer.render(linkCounters: link)) }
        }
        return ran
    }

    /// The check between its begin and end: the begin line, the link's line on the terminal, the engine.
    private func bracketed(_ check: PlannedCheck, in lifecycle: RunLifecycle, _ context: CheckContext, linkFailure: TaskError?) async -> CheckRun {
        let recorder = lifecycle.recorder
        if let name = check.name {
            if lifecycle.terminal { printLine("\n── check \(name) (\(check.runner.kindName))") }
            do throws(TaskError) {
                try recorder.beginCheck(name: name, kind: check.runner.kindName, thresholds: check.thresholds, overlapping: context.overlapping,
                                        link: context.link?.started ?? check.link.map(CheckLink.planned))
            } catch {
                return CheckRun(runError: error, bracketOpen: false)
            }
        }
        if lifecycle.terminal, let link = context.link {
            printLine(context.linePrefix + RunSettings.terminalRenderer.render(linkConditions: link.started))
        }
        let outcome: CheckOutcome
        if let linkFailure { outcome = CheckOutcome(error: linkFailure, setupFailed: true) } else { outcome = await check.runner.run(in: lifecycle, context) }
        guard let name = check.name else { return CheckRun(outcome: outcome, failedWork: outcome.failedWork, runError: outcome.error) }
        if let error = outcome.error {
            // In a suite a check's error fails that check; the suite goes on.
            printError("sonde: check \(name): \(error.message)")
        }
        return CheckRun(outcome: outcome, failedWork: outcome.failedWork || outcome.error != nil, checkError: outcome.error)
    }

    public func run(_ checks: sending [PlannedCheck]) async -> ExitStatus { await runReporting(checks).status }

    /// Runs `checks` as one run; what `run` does, with the report for a caller that keeps it (serve).
    public func runReporting(_ checks: sending [PlannedCheck]) async -> Ended {
        let redactor = settings.redactor
        var capture = self.capture
        let single = checks.count == 1 && checks[0].name == nil
        if single, let foreign = settings.thresholds.first(where: { $0.metric.isDeclared && !checks[0].runner.kind.judges($0) }) {
            // A metric another kind declares (`sse.gap.p95` on `sonde probe`) would only ever read "no data".
            printError("sonde: --threshold '\(foreign.expression)' judges a metric this command does not measure: \(checks[0].runner.kind.metricsHint)")
            return Ended(status: .usage)
        }
        if capture != nil, !single, checks.contains(where: { $0.link != nil }) {
            // Each check's link has devices of its own; one capture of the run cannot see them all.
            let why = "--capture of a suite whose checks cross links is not supported yet (each link has its own devices); "
                + "capture a single check with --link, or inside a link: ip netns exec sonde-link-<pid> tcpdump -i sonde<pid>c (docs/link.md)"
            guard capture == .optional else {
                printError("sonde: " + why)
                return Ended(status: .usage)
            }
            if !quiet && !settings.json { printError("warning: no capture: " + why) }
            capture = nil
        }
        // A capture holds this run's connections only: they bind to a block of local ports that
        // the capture filter names.
        let localPorts = capture != nil ? LiveCapture.localPortBlock() : nil
        var checks = checks
        for index in checks.indices {
            if settings.traceparent { checks[index].runner.trace(settings.traceContext) }
            do throws(TaskError) { try checks[index].runner.prepare(redactor: redactor, localPorts: localPorts) } catch {
                printError("sonde: " + (checks[index].name.map { "check \($0): " } ?? "") + error.message)
                return Ended(status: .usage)
            }
        }
        if checks.contains(where: { $0.link != nil }), let problem = CheckLink.privilegeProblem {
            printError("sonde: " + problem)
            return Ended(status: .usage)
        }
        let warnings = Array(Set(checks.flatMap { $0.runner.warnings })).sorted()
        // A single check's link is the run's (a suite's checks carry their own).
        let runLink = single ? checks[0].link.map(CheckLink.planned) : nil
        let subject = RunSubject(checks: checks.map { RunSubject.check(name: $0.name, kind: $0.runner.kindName, linkSpec: $0.link?.spec) },
                                 urls: checks.flatMap { $0.runner.targets.urls })
        guard let lifecycle = RunLifecycle.open(command: command, arguments: arguments, settings: settings,
                                                insecure: checks.contains { $0.runner.insecure }, subject: subject,
                                                warnings: warnings, capture: capture,
                                                quiet: quiet, stop: stop, link: runLink,
                                                checkKinds: Array(Set(checks.map { $0.runner.kindName })).sorted())
        else { return Ended(status: .usage) }
        lifecycle.catchSignals()
        // A single check captured over its link: the link comes up first, so that the capture opens
        // on its device (the emulated side), and goes after the capture ended.
        var capturedLink: CheckLink?
        if capture != nil, single, let profile = checks[0].link {
            do throws(TaskError) { capturedLink = try CheckLink.start(profile, targets: checks[0].runner.targets) } catch {
                return Ended(status: lifecycle.abandon(error, prefix: "sonde \(command)"))
            }
        }
        // Endpoints only for a capture off any link: they are resolved on the host (a lookup before
        // the run's own). Over a link the capture is on the link's device, which carries this
        // check alone, and its names are resolved inside the link only.
        let endpoints = capture != nil && capturedLink == nil ? checks.flatMap { $0.runner.endpoints } : []
        guard lifecycle.startCapture(mode: capture, endpoints: endpoints, localPorts: localPorts,
                                     link: capturedLink) else {
            capturedLink?.stop()
            return Ended(status: .usage)
        }

        let suite = checks.contains { $0.name != nil }
        let width = max(1, min(parallel, checks.count))
        let har = checks.contains { $0.runner.recordsHAR }
        let note = interruptedNote(checks)
        if width > 1 {
            // The checks go to their tasks, one each: none is left here to render on its own.
            let (failedWork, runError) = await runAtOnce(checks, width: width, in: lifecycle)
            let status = lifecycle.finish(error: runError, failedWork: failedWork, har: har, interruptedNote: note) { finished, renderer in
                printLine()
                printLine(renderer.render(checks: finished.checks, soaks: finished.soaks, resume: finished.resume,
                                          sections: finished.sections, renderers: finished.renderers))
            }
            return Ended(status: status, finished: lifecycle.finished, folder: lifecycle.recorder.folder.path)
        }
        var runError: TaskError?
        var failedWork = false
        var endedLink: LinkUse?
        for check in checks {
            if lifecycle.interrupted { break }
            let ran = await run(check, in: lifecycle, CheckContext(name: check.name), upLink: capturedLink)
            if ran.outcome?.setupFailed == true && !suite, let error = ran.outcome?.error {
                // Nothing of the only check ran: the run is given up as a usage error.
                return Ended(status: lifecycle.abandon(error, prefix: "sonde \(command)"))
            }
            failedWork = failedWork || ran.failedWork
            if check.name == nil { endedLink = ran.link }
            if let error = ran.runError {
                runError = error
                break
            }
        }
        if let capturedLink {
            lifecycle.finishCapture()
            endedLink = capturedLink.stop()
        }
        let status = lifecycle.finish(error: runError, failedWork: failedWork, har: har, interruptedNote: note, link: endedLink) { finished, renderer in
            if suite {
                printLine()
                printLine(renderer.render(checks: finished.checks, soaks: finished.soaks, resume: finished.resume,
                                          sections: finished.sections, renderers: finished.renderers))
            } else {
                for check in checks { check.runner.render(finished, renderer) }
            }
        }
        return Ended(status: status, finished: lifecycle.finished, folder: lifecycle.recorder.folder.path)
    }

    /// Runs up to `width` checks at once, started in their order; a Ctrl-C starts no more. Each
    /// check (its prepared engines) is handed to the task that runs it, taken from `pending`.
    private func runAtOnce(_ checks: sending [PlannedCheck], width: Int, in lifecycle: RunLifecycle) async -> (failedWork: Bool, runError: TaskError?) {
        let pending = Mutex(checks)
        var runError: TaskError?
        var failedWork = false
        await withTaskGroup(of: CheckRun.self) { group in
            func startNext() {
                guard runError == nil, !lifecycle.interrupted,
                      let check = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                group.addTask { await self.run(check, in: lifecycle, CheckContext(name: check.name, overlapping: true)) }
            }
            for _ in 0..<width { startNext() }
            while let ran = await group.next() {
                failedWork = failedWork || ran.failedWork
                if runError == nil { runError = ran.runError }
                startNext()
            }
        }
        return (failedWork, runError)
    }

    private func interruptedNote(_ checks: [PlannedCheck]) -> String {
        if checks.count > 1 { return "the check under way was ended and the checks after it did not start; the report holds what ran" }
        return checks.first?.runner.interruptedNote ?? "the report holds the tasks that finished"
    }
}
