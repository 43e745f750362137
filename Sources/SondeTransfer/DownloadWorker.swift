import Foundation
import SondeCore
import SondeHTTP

/// The body of a worker process (`sonde resume --worker …`): continue the download described by
/// the resume data on disk, and die by SIGKILL once `dieAt` bytes are on disk. The leg report is
/// written just before the kill, or at the end when the download finished first.
public enum DownloadWorker {
    /// - Returns: the process exit status when it did not die (0: the download finished or failed
    ///   and said so in the leg report; 64: unusable arguments or files).
    public static func run(resumeDataPath: String, settingsDescriptor: Int32, dieAt: Int64, legReportPath: String,
                           restart: Bool) -> Int32 {
        let writeReport: (LegReport) -> Void = { report in
            if let data = try? JSONEncoder().encode(report) {
                try? writeReplacing(legReportPath, data)
            }
        }
        do throws(TaskError) {
            let settings = try TransferSettings.read(fromDescriptor: settingsDescriptor)
            var state = try ResumeData.load(from: resumeDataPath)
            // The worker only writes bytes; the parent hashes the file when it picks it up.
            let file = try PartialFile(path: state.partialPath, verifying: false)
            let transfer = try StreamingTransfer(options: settings.probeOptions, redactor: settings.redactor,
                                                 stallTimeoutMs: settings.stallTimeoutMs)
            let report = DownloadLeg.run(transfer: transfer, state: &state, file: file,
                                         stop: PlannedStop(atByte: dieAt, kind: .processKill), forceRestart: restart,
                                         headers: settings.headers, onProgress: { _ in },
                                         persist: { try? $0.save(to: resumeDataPath) }, beforeKill: writeReport)
            writeReport(report)
            return 0
        } catch {
            var report = LegReport()
            report.error = error
            writeReport(report)
            StandardStreams.writeError(Data("sonde resume worker: \(error.message)\n".utf8))
            return 64
        }
    }
}
