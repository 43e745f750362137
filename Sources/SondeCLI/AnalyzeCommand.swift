import ArgumentParser
import Foundation
import SondeCapture
import SondeCore
import SondeHTTP
import SondeReport
import SondeRun
import SondeSuite

/// `sonde analyze FILE…`: offline analysis of existing captures (tcpdump, tshark, Wireshark,
/// sonde's own) into a run folder with the `captures` section.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse pcap/pcapng captures: TCP handshakes, initial RTT, retransmissions, duplicate ACKs, zero windows, resets; QUIC connections.",
        discussion: """
        Link types: \(CaptureFileAnalyzer.supportedLinkTypes.joined(separator: ", ")); IPv4 and IPv6. \
        Counters follow Wireshark's TCP analysis; QUIC connections (UDP) are read from their cleartext headers \
        (packets by type each way, first Initial → first server packet). A damaged or truncated file gives the flows read before the damage, \
        marked partial (exit 1); a file that is not a capture is an error (exit 64).
        Example: sonde analyze capture.pcap
        """)

    @Argument(help: "Capture files (pcap or pcapng).")
    var files: [String]

    @OptionGroup var report: ReportOptions

    /// `--baseline` compares a run's probe phases, and an analysis has none: refused rather than ignored.
    mutating func validate() throws {
        files = PositionalRuns.split(files)
        if report.baselinePath != nil {
            throw ValidationError("--baseline (or baseline: in --config) compares probe phases, which an analysis of captures has none of: leave it out")
        }
    }

    func run() throws {
        let redactor = report.redactor
        let started = Timestamp.now()
        var captures: [CaptureReport] = []
        for file in files {
            do {
                captures.append(try CaptureFileAnalyzer.analyze(path: file))
            } catch {
                printError("sonde: \(error.message)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        var run = RunInfo(id: RunInfo.makeID(command: "analyze", at: started), command: "analyze",
                          arguments: redactor.redact(arguments: Array(CommandLine.arguments.dropFirst())), startedAt: started,
                          status: .error, insecure: false, redacted: redactor.isEnabled)
        let outcome: RunOutcome
        let folder: RunFolder
        do {
            folder = try RunFolder(outputDirectory: report.outputDirectory, runID: run.id)
            run.id = folder.runID
            let recorder = try RunRecorder(folder: folder, tool: CurlLibrary.toolInfo, run: run, renderers: CheckKinds.sonde.sectionRenderers)
            for capture in captures { try recorder.record(capture: capture) }
            let status: RunStatus = captures.allSatisfy(\.complete) ? .passed : .failed
            outcome = try recorder.finish(status: status, thresholds: report.thresholds, prometheusPath: report.prometheusPath)
        } catch {
            printError("sonde: could not write the report: \(error.message)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        report.history.record(folder)
        report.settings.export(folder, run: outcome.run)
        if report.json {
            printReportDocument(folder)
        } else {
            let renderer = TerminalRenderer(useColor: false)
            for capture in captures { printLine(renderer.render(capture: capture)) }
            if !outcome.thresholds.isEmpty { printLine(RunSettings.terminalRenderer.render(thresholds: outcome.thresholds)) }
            // The end every run command has: the files, the HTML report's path last.
            printReportPaths(folder, har: false, prometheusPath: report.prometheusPath)
        }
        throw ExitCode(outcome.exitStatus.rawValue)
    }
}
