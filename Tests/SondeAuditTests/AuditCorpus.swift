import Foundation
@testable import SondeAudit

/// The nginx corpus of scripts/audit-corpus.sh, started once for the suites that need it: one
/// server per configuration on consecutive loopback ports, all under the corpus' own CA.
final class AuditCorpus: Sendable {
    struct Server: Sendable {
        var name: String
        var port: Int
        var flaw: String
        /// "tls" (a TLS or certificate flaw; the oracles run on these), "http" (an HTTP flaw),
        /// "chain" (a flaw beyond the leaf) or "redirect" (a redirect through a host the certificate lacks).
        var group: String
        /// The URL to audit.
        var url: String
        /// The `HOST:PORT:ADDRESS,…` entries the URL's names need (`AuditOptions.resolve`; the
        /// table's column holds them separated by spaces): the corpus' names under audit.test
        /// exist only through them.
        var resolve: [String] = []
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
        // 40 consecutive free ports (a block of 48): a few random bases are tried.
        for _ in 0..<20 {
            let base = Int.random(in: 20_000...60_000)
            guard (base..<base + 48).allSatisfy(Self.portIsFree) else { continue }
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
            guard fields.count == 5 || fields.count == 6, let port = Int(fields[1]) else { return nil }
            let resolve = fields.count == 6 ? fields[5].split(separator: " ").map(String.init) : []
            return Server(name: fields[0], port: port, flaw: fields[2], group: fields[3], url: fields[4], resolve: resolve)
        }
        // nginx lives as long as the test process; it is stopped when the process exits
        // (atexit), by its pid.
        let pidFile = directory + "/nginx.pid"
        AuditCorpus.stopAtExit(pidFile: pidFile)
    }

    func server(_ name: String) -> Server? { servers.first { $0.name == name } }

    /// The servers of one group ("tls" or "http").
    func servers(in group: String) -> [Server] { servers.filter { $0.group == group } }

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

    /// Whether `port` can be bound on 127.0.0.1 and on ::1 (the ipv6-* servers listen on both).
    static func portIsFree(_ port: Int) -> Bool {
        portIsFreeV4(port) && portIsFreeV6(port)
    }

    private static func portIsFreeV6(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }

    private static func portIsFreeV4(_ port: Int) -> Bool {
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

    /// Runs a program to completion (SIGKILLed after `timeout` s), stdout and stderr together in a
    /// file, with posix_spawn and waitpid (Foundation's Process missed the exit of a child whose
    /// own child lives on, and waited forever).
    static func run(_ executable: String, _ arguments: [String], timeout: Double) -> (status: Int32, output: String) {
        let outputPath = NSTemporaryDirectory() + "sonde-audit-out-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The child starts with no signal blocked and default dispositions: the test process's
        // threads block most signals, and a child inheriting that mask (hypercorn under `timeout`)
        // never sees the SIGTERM that is to stop it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { return (127, "\(executable): posix_spawn failed (\(spawned))") }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        let exitCode: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitCode, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }
}
