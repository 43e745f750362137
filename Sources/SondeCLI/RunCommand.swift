import ArgumentParser
import Foundation
import SondeCore
import SondeRun
import SondeSuite

/// `sonde run SUITE.yaml`: every check of a suite file into one run folder, in order.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the checks of a suite file (probe, soak and resume checks declared once) into one run folder.",
        discussion: """
        Example: sonde run examples/suites/mobile-api-smoke.yaml --only api
        The whole file is validated before any request: a bad key, type, unit, name or threshold, or an \
        unset ${VAR}, is said with its file:line:column and exits 64 without a run folder. Checks run in \
        order; Ctrl-C ends the check under way and writes the report of what ran (130). Every check's \
        entries and thresholds carry "check": "<name>" in report.json, junit.xml has a testsuite per \
        check, Prometheus series a check label. `sonde probe|soak|resume … --print-suite` prints the \
        suite entry of a command line.
        """)

    @Argument(help: ArgumentHelp("The suite file (YAML; see Reports/schema/sonde-suite.schema.json).", valueName: "suite.yaml"))
    var suitePath: String

    @Option(name: .customLong("only"), help: ArgumentHelp("Run only the check with this name (repeatable).", valueName: "name"))
    var only: [String] = []

    @OptionGroup var capture: CaptureOption

    @Flag(name: .customLong("print-suite"), help: "Print the suite as sonde reads it (defaults applied, ${VAR}s kept as written) and run nothing.")
    var printSuite = false

    @OptionGroup var progress: ProgressOption
    @OptionGroup var report: ReportOptions

    func run() async throws {
        let loaded: SuiteLoader.Loaded
        do throws(SuiteLoader.Failure) { loaded = try SuiteLoader.load(path: suitePath, kinds: .sonde) } catch {
            printError("sonde run: \(suitePath) was refused, nothing ran:\n\(error.description)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var suite = loaded.suite
        if !only.isEmpty {
            let names = Set(suite.checks.map(\.name))
            for name in only where !names.contains(name) {
                printError("sonde run: --only \(name): no such check in \(suitePath); its checks: \(suite.checks.map(\.name).joined(separator: ", "))")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            suite.checks = suite.checks.filter { only.contains($0.name) }
        }
        if printSuite {
            var printed = loaded
            printed.suite = suite
            StandardStreams.write(printed.suiteYAML(), to: .output)
            return
        }
        // Values from the environment are secrets wherever a name does not already say so.
        var settings = progress.applied(to: report.settings)
        settings.extraRedactions += loaded.namesCarryingEnvironment
        var planned: [PlannedCheck] = []
        for check in suite.checks {
            do throws(SpecProblem) { planned.append(try PlannedCheck(check, settings: settings)) } catch {
                printError("sonde run: check \(check.name): \(error.description)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        let status = await CheckDriver(command: "run", arguments: Array(CommandLine.arguments.dropFirst()), settings: settings,
                                       capture: capture.mode, parallel: suite.parallel)
            .run(planned)
        throw ExitCode(status.rawValue)
    }
}
