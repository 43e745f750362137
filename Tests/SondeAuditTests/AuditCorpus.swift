import Foundation
@testable import SondeAudit

/// The nginx corpus of scripts/audit-corpus.sh, started once for the suites that need it: one
/// server per configuration on consecutive loopback ports, all under the corpus' own CA.
final class AuditCorpus: Sendable {
    struct Server: Sendable {
        var name: String
        var port: Int
        var flaw: String
        var url: String { "https://127.0.0.1:\(port)/" }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    let directory: String
    let servers: [Server]
    var caFile: String { directory + "/ca/root.pem" }

    static let shared: Result<AuditCorpus, any Error> = Result { try AuditCorpus() }

    struct CorpusError: Error, CustomStringConvertible { var description: String }

    private init() throws(CorpusError) {
        directory = NSTemporaryDirectory() + "sonde-audit-corpus-\(UUID().uuidString)"
        var started: (status: Int32, output: String) = (1, "")
        // Nine consecutive free ports: a few random bases are tried.
        for _ in 0..<20 {
            let base = Int.random(in: 20_000...60_000)
            guard (base..<base + 12).allSatisfy(Self.portIsFree) else { continue }
            try? FileManager.default.removeItem(atPath: directory)
            started = Self.run("/bin/bash", [Self.root + "/scripts/audit-corpus.sh", directory, "\(base)"], timeout: 120)
            if started.status == 0 { break }
        }
        guard started.status == 0 else { throw CorpusError(description: "the corpus did not start: \(started.output)") }
        guard let table = try? String(contentsOfFile: directory + "/corpus.tsv", encoding: .utf8) else {
            throw CorpusError(description: "no corpus.tsv in \(directory)")
        }
        servers = table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, let port = Int(fields[1]) else { return nil }
            return Server(name: fields[0], port: port, flaw: fields[2])
        }
        // nginx lives as long as the test process; it is stopped when the process exits
        // (atexit), by its pid.
        let pidFile = directory + "/nginx.pid"
        AuditCorpus.stopAtExit(pidFile: pidFile)
    }

    func server(_ name: String) -> Server? { servers.first { $0.name == name } }

    private static let pidFiles = NSLock()
    nonisolated(unsafe) private static var registered: [String] = []

    private static func stopAtExit(pidFile: String) {
        pidFiles.lock()
        registered.append(pidFile)
        let first = registered.count == 1
        pidFiles.unlock()
        guard first else { return }
        atexit {
            AuditCorpus.pidFiles.lock()
            let files = AuditCorpus.registered
            AuditCorpus.pidFiles.unlock()
            for file in files {
                if let text = try? String(contentsOfFile: file, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                    kill(pid, SIGQUIT)
                }
            }
        }
    }

    static func portIsFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs a program to completion (killed after `timeout` s), stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String], timeout: Double) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputPath = NSTemporaryDirectory() + "sonde-audit-out-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { unlink(outputPath) }
        guard let handle = FileHandle(forWritingAtPath: outputPath) else { return (127, "cannot write \(outputPath)") }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "\(executable): \(error)") }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? handle.close()
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, output)
    }
}
