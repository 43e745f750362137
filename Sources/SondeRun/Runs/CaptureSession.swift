import Foundation
import SondeCapture
import SondeCore
import SondeSuite
import SondeHTTP
import SondeReport

/// `--capture` for a probe, resume or soak run: where the run's flows go (remote addresses from the
/// URLs, through `--resolve` or getaddrinfo), the interface that carries them, and the capture
/// around the run. The capture file is analysed with the same engine as `sonde analyze` once the
/// run is over and journalled, so every report of the run carries it.
public struct CaptureSession: Sendable {
    /// `--capture` (required: no privilege is an error) or `--capture=optional` (a warning).
    public enum Mode: String, Sendable { case required, optional }

    let capture: LiveCapture

    /// Opens the capture of the flows between `localPorts` and `endpoints`, or explains why it
    /// cannot: nil and a warning when optional.
    /// - Parameter localPorts: the block the run's connections bind to (`ProbeOptions.localPorts`).
    /// - Parameter link: the emulated link the flows cross: the capture opens on its device inside
    ///   its namespace, where the packets are as the checked process sees them.
    static func open(mode: Mode, endpoints: [(address: String, port: Int)], localPorts: ClosedRange<Int>,
                     folder: String, link: CheckLink? = nil) throws(TaskError) -> (CaptureSession?, String?) {
        guard !endpoints.isEmpty || link != nil else {
            throw TaskError(code: .dnsFailure, message: "--capture: none of the URLs resolves to an address to capture")
        }
        let interfaces = Set(endpoints.map { LiveCapture.interface(for: $0.address) })
        let interface = link?.device ?? (interfaces.count == 1 ? interfaces.first! : "any")
        // The link's device carries the check's flows alone: its local ports are the filter.
        let ports = "\(localPorts.lowerBound)-\(localPorts.upperBound)"
        let filter = link != nil ? "tcp portrange \(ports) or udp portrange \(ports)" : LiveCapture.filter(for: endpoints, localPorts: localPorts)
        let path = folder + "/capture.pcap"
        do {
            let capture: LiveCapture
            if let link {
                // libpcap's socket belongs to the namespace of the thread that activates it.
                capture = try link.inside { () -> Result<LiveCapture, TaskError> in
                    do throws(TaskError) { return .success(try LiveCapture(interface: interface, filter: filter, path: path)) } catch { return .failure(error) }
                }.get().get()
            } else {
                capture = try LiveCapture(interface: interface, filter: filter, path: path)
            }
            return (CaptureSession(capture: capture), nil)
        } catch {
            guard mode == .optional else { throw error }
            return (nil, "--capture=optional: running without a capture: \(error.message)")
        }
    }

    /// Opens and starts the capture of a run whose folder is open, saying so on the terminal.
    /// nil when a required capture cannot run: the error is said, and the run folder is removed
    /// (nothing ran, as for any usage error); the caller exits with 64.
    static func start(mode: Mode, endpoints: [(address: String, port: Int)], localPorts: ClosedRange<Int>,
                      recorder: RunRecorder, json: Bool, link: CheckLink? = nil) -> CaptureSession?? {
        do throws(TaskError) {
            let (opened, warning) = try open(mode: mode, endpoints: endpoints, localPorts: localPorts, folder: recorder.folder.path, link: link)
            if let warning { printError("warning: \(warning)") }
            opened?.capture.start()
            if !json, let opened {
                printLine("capturing on \(opened.capture.interface) (\(opened.capture.filter)) into \(opened.capture.path)")
            }
            return .some(opened)
        } catch {
            printError("sonde: \(error.message)")
            _ = try? recorder.finish(status: .error)
            try? FileManager.default.removeItem(atPath: recorder.folder.path)
            return nil
        }
    }

    /// Stops the capture, analyses the file, journals the evidence and says how it went; the
    /// error, when there was one, for the run's status.
    func finish(into recorder: RunRecorder, json: Bool) -> TaskError? {
        do throws(TaskError) {
            let evidence = try stopAndAnalyse()
            try recorder.record(capture: evidence)
            if !json {
                printLine("capture: \(evidence.packets) packets, \(evidence.flows.count) connections"
                    + (evidence.quicFlows.isEmpty ? "" : ", \(evidence.quicFlows.count) QUIC connections")
                    + (evidence.drops.map { $0 > 0 ? ", \($0) DROPPED by the kernel (the evidence has gaps)" : ", no drops" } ?? ""))
            }
            return nil
        } catch {
            return error
        }
    }

    /// Packets kept per connection for the per-transaction timelines in the report.
    static let packetMarks = 256

    /// Stops the capture once the run's last packets are in (`LiveCapture.finish`) and analyses the file.
    private func stopAndAnalyse() throws(TaskError) -> CaptureReport {
        try capture.finish(markLimit: Self.packetMarks)
    }
}
