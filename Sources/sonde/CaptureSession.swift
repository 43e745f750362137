import Foundation
import SondeCapture
import SondeCore
import SondeHTTP

/// `--capture` for a probe run: where the run's flows go (remote addresses from the URLs, through
/// `--resolve` or getaddrinfo), the interface that carries them, and the capture around the run.
/// The capture file is analysed with the same engine as `sonde analyze` once the run is over.
struct CaptureSession {
    /// `--capture` (required: no privilege is an error) or `--capture=optional` (a warning).
    enum Mode: String { case required, optional }

    let capture: LiveCapture

    /// Opens the capture for `groups`, or explains why it cannot: nil and a warning when optional.
    /// - Parameter localPorts: the block the run's connections bind to (`ProbeOptions.localPorts`).
    static func open(mode: Mode, groups: [ProbeGroup], localPorts: ClosedRange<Int>, folder: String) throws(TaskError) -> (CaptureSession?, String?) {
        var endpoints: [(address: String, port: Int)] = []
        for group in groups {
            for url in group.urls {
                guard let parts = URL(string: url), let host = parts.host else { continue }
                let port = parts.port ?? (parts.scheme?.lowercased() == "https" ? 443 : 80)
                endpoints += addresses(host: host, port: port, resolve: group.options.resolve).map { ($0, port) }
            }
        }
        guard !endpoints.isEmpty else {
            throw TaskError(code: .dnsFailure, message: "--capture: none of the URLs resolves to an address to capture")
        }
        let interfaces = Set(endpoints.map { LiveCapture.interface(for: $0.address) })
        let interface = interfaces.count == 1 ? interfaces.first! : "any"
        do {
            let capture = try LiveCapture(interface: interface, filter: LiveCapture.filter(for: endpoints, localPorts: localPorts), path: folder + "/capture.pcap")
            return (CaptureSession(capture: capture), nil)
        } catch {
            guard mode == .optional else { throw error }
            return (nil, "--capture=optional: running without a capture: \(error.message)")
        }
    }

    /// The addresses a host resolves to: a `--resolve host:port:address` entry wins, as in libcurl.
    static func addresses(host: String, port: Int, resolve: [String]) -> [String] {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        for entry in resolve {
            let parts = entry.split(separator: ":", maxSplits: 2).map(String.init)
            if parts.count == 3, parts[0] == bare, Int(parts[1]) == port {
                return [parts[2].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))]
            }
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        guard getaddrinfo(bare, String(port), &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var result: [String] = []
        var node = list
        while let current = node {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                result.append(String(cString: buffer))
            }
            node = current.pointee.ai_next
        }
        return Array(Set(result)).sorted()
    }

    /// Stops the capture (after a moment for the last FIN/ACKs) and analyses the file.
    func finish() throws(TaskError) -> CaptureReport {
        usleep(300_000)
        let counters = capture.stop()
        var report = try CaptureFileAnalyzer.analyze(path: capture.path)
        report.interface = capture.interface
        report.filter = capture.filter
        report.drops = counters.dropped
        report.file = "capture.pcap"
        return report
    }
}
