import Foundation

/// The nginx audit corpus (scripts/audit-corpus.sh) for the CLI tests: started once per test
/// process on consecutive free loopback ports (a block of 48), stopped (by its pid file) when the process exits.
final class AuditCorpusProcess: Sendable {
    let directory: String
    /// name → URL to audit (corpus.tsv).
    let urls: [String: String]
    /// name → the `--resolve` entries its URL needs (corpus.tsv's sixth column, split at spaces).
    let resolves: [String: [String]]
    var caFile: String { directory + "/ca/root.pem" }

    static let shared: Result<AuditCorpusProcess, any Error> = Result { try AuditCorpusProcess() }
    static func get() throws -> AuditCorpusProcess { try shared.get() }

    private init() throws {
        directory = Harness.temporaryDirectory() + "/corpus"
        var started = Harness.Result(status: 1, stdout: "", stderr: "")
        for _ in 0..<20 {
            let base = Int.random(in: 20_000...60_000)
            guard (base..<base + 48).allSatisfy(Self.portIsFree) else { continue }
            try? FileManager.default.removeItem(atPath: directory)
            started = try Harness.run("/bin/bash", [Harness.root + "/scripts/audit-corpus.sh", directory, "\(base)"], timeout: 120)
            if started.status == 0 { break }
        }
        guard started.status == 0 else { throw Harness.SpawnError(message: "the audit corpus did not start: \(started.stdout)\(started.stderr)") }
        let table = try String(contentsOfFile: directory + "/corpus.tsv", encoding: .utf8)
        var urls: [String: String] = [:]
        var resolves: [String: [String]] = [:]
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields.count >= 5 { urls[fields[0]] = fields[4] }
            if fields.count >= 6 { resolves[fields[0]] = fields[5].split(separator: " ").map(String.init) }
        }
        self.urls = urls
        self.resolves = resolves
        Self.pidFile.withLock { $0 = directory + "/nginx.pid" }
        atexit {
            guard let file = AuditCorpusProcess.pidFile.withLock({ $0 }),
                  let text = try? String(contentsOfFile: file, encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
            kill(pid, SIGQUIT)
        }
    }

    func url(_ name: String) throws -> String {
        guard let url = urls[name] else { throw Harness.SpawnError(message: "no corpus server \(name)") }
        return url
    }

    /// `--resolve ENTRY` arguments for the server's URL (none when it needs none).
    func resolveArguments(_ name: String) -> [String] {
        (resolves[name] ?? []).flatMap { ["--resolve", $0] }
    }

    /// The server's port.
    func port(_ name: String) throws -> Int {
        guard let port = URLComponents(string: try url(name))?.port else { throw Harness.SpawnError(message: "no port in \(name)'s URL") }
        return port
    }

    private static let pidFile = LockedValue<String?>(nil)

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
}

/// A value behind a lock (the corpus's pid file, read by the atexit handler).
final class LockedValue<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func withLock<R>(_ body: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
