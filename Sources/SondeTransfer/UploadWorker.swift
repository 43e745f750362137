import Foundation
import SondeCore
import SondeHTTP

/// The body of an upload worker process (`sonde resume-worker --upload-state …`): one request of
/// the upload (creation, or an append from `--offset`), killed by SIGKILL once `dieAt` bytes of
/// the file have been handed to libcurl. The upload state (with an upload URL learned from a 104)
/// and the leg report are written just before the kill.
public enum UploadWorker {
    public static func run(statePath: String, settingsDescriptor: Int32, dieAt: Int64, legReportPath: String, offset: Int64?) -> Int32 {
        let writeReport: (UploadLegReport) -> Void = { report in
            if let data = try? JSONEncoder().encode(report) { try? writeReplacing(legReportPath, data) }
        }
        do throws(TaskError) {
            let settings = try TransferSettings.read(fromDescriptor: settingsDescriptor)
            var state = try UploadState.load(from: statePath)
            let transfer = try StreamingTransfer(options: settings.probeOptions, redactor: settings.redactor, stallTimeoutMs: settings.stallTimeoutMs)
            let kind: UploadLeg.Kind = offset.map { .append(offset: $0) } ?? .create
            let creationURL = state.creationURL
            let before = state
            let report = UploadLeg.run(transfer: transfer, state: &state, kind: kind, stop: PlannedStop(atByte: dieAt, kind: .processKill),
                                       headers: settings.headers, persist: { $0.save(to: statePath) },
                                       beforeKill: { report in
                                           // What the app would have kept: the upload URL a 104 gave.
                                           if let location = transfer.informationalSoFar.last(where: { $0.status == 104 })?.value("Location") {
                                               var known = before
                                               known.uploadURL = known.uploadURL ?? UploadLeg.resolve(location, against: creationURL)
                                               known.save(to: statePath)
                                           }
                                           writeReport(report)
                                       })
            writeReport(report)
            return 0
        } catch {
            var report = UploadLegReport()
            report.error = error
            writeReport(report)
            StandardStreams.writeError(Data("sonde resume worker: \(error.message)\n".utf8))
            return 64
        }
    }
}
