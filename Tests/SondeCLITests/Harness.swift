import Foundation
import Synchronization
import Testing

/// Paths and process helpers for the end-to-end tests, which drive the built `sonde` binary.
enum Harness {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The `sonde` that `swift test` built for this configuration: the executable beside the test
    /// bundle (`.build/<triple>/<debug|release>/`), so `swift test -c release` tests the release
    /// binary. `SONDE_BINARY` overrides it (to test an installed sonde).
    static let sonde: String = {
        if let override = ProcessInfo.processInfo.environment["SONDE_BINARY"], !override.isEmpty { return override }
        return productsDirectory + "/sonde"
    }()

    /// The build products folder of the running test bundle, read from /proc/self/exe (the
    /// `.xctest` executable that swift test runs lives beside the products it built).
    static let productsDirectory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()
    static let schema = root + "/Reports/schema/sonde-report.schema.json"

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// stderr without the line every run prints when it is not on its bundled libcurl
        /// (LibcurlProvenance: `make test-system-libcurl` runs every test so, through LD_LIBRARY_PATH).
        var stderrBesidesLibcurl: String {
            stderr.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("warning: runs on libcurl ") && !$0.hasPrefix("warning: libcurl ") }
                .joined(separator: "\n")
        }
    }

    /// Runs a program to completion (SIGKILLed after `timeout` seconds, optionally sent SIGINT after
    /// `interruptAfter`), its output captured in files. Uses posix_spawn and waitpid directly.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 120,
                    interruptAfter: Double? = nil) throws -> Result {
        let outPath = NSTemporaryDirectory() + "sonde-out-\(UUID().uuidString)"
        let errPath = NSTemporaryDirectory() + "sonde-err-\(UUID().uuidString)"
        defer { unlink(outPath); unlink(errPath) }
        let pid = try spawn(executable, arguments, stdout: outPath, stderr: errPath)
        let start = Date()
        var interrupted = false
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            let elapsed = Date().timeIntervalSince(start)
            if let interruptAfter, !interrupted, elapsed >= interruptAfter {
                kill(pid, SIGINT)
                interrupted = true
            }
            if elapsed > timeout { kill(pid, SIGKILL) }
            usleep(10_000)
        }
        let exitCode: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Result(status: exitCode, stdout: out, stderr: err)
    }

    /// Starts a program with stdin from /dev/null and stdout/stderr into files; returns its pid.
    static func spawn(_ executable: String, _ arguments: [String], stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else of this process reaches the child: SwiftNIO's sockets are not close-on-exec,
        // and a child holding an in-process listener's socket keeps its port from being bound again.
        Self.closeFrom(&actions, 3)
        // The child starts with SIGINT and SIGTERM at their defaults and nothing blocked: the test
        // runner may ignore SIGINT, and an ignored disposition survives exec (tcpdump, for one,
        // then never stops on SIGINT).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard code == 0 else { throw SpawnError(message: "cannot start \(executable): \(String(cString: strerror(code)))") }
        return pid
    }

    struct SpawnError: Error { var message: String }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module does
    /// not export: found with dlsym.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        _ = addCloseFrom?(&actions, lowest)
    }

    /// The entries of an output directory (run folders, history, files a test put there) without
    /// the `latest` link that every finished run replaces (docs/reports.md).
    static func entries(of output: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: output).filter { $0 != "latest" }
    }

    /// The lines of the journal of the one run folder under `output` that contain every one of
    /// `needles`; 0 while there is no run folder or journal yet.
    static func journalLines(under output: String, containing needles: String...) -> Int {
        guard let folder = try? entries(of: output).first(where: { !$0.hasPrefix("history.sqlite") }),
              let text = try? String(contentsOfFile: output + "/" + folder + "/journal.jsonl", encoding: .utf8) else { return 0 }
        return text.split(separator: "\n").filter { line in needles.allSatisfy { line.contains($0) } }.count
    }

    /// Polls `condition` every `every` seconds (50 ms unless told) until it holds (true) or
    /// `seconds` have passed (false).
    static func waitFor(seconds: Double, every: Double = 0.05, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(useconds_t(every * 1e6))
        }
        return true
    }

    /// Sends `signal`, waits up to `seconds` for the process to end, then SIGKILLs it (bounded).
    static func stop(_ pid: pid_t, signal: Int32 = SIGINT, seconds: Double = 10) {
        kill(pid, signal)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(seconds)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return
            }
            usleep(20_000)
        }
    }

    static func sonde(_ arguments: [String], timeout: Double = 120, interruptAfter: Double? = nil) throws -> Result {
        try run(sonde, arguments, timeout: timeout, interruptAfter: interruptAfter)
    }

    /// Validates report files against the JSON Schema with Python's jsonschema (installed by `make test`).
    /// Expects `secret` in none of a probe run's outputs: its stdout and stderr, every file of its
    /// run folder that a person or a tool reads, and the Prometheus file when there is one.
    static func expectNowhere(_ secret: String, result: Result, folder: String, prom: String? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "the terminal shows a secret", sourceLocation: sourceLocation)
        for path in ["report.json", "report.html", "journal.jsonl", "report.har", "junit.xml"].map({ folder + "/" + $0 }) + (prom.map { [$0] } ?? []) {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains(secret), "\(path) leaks a secret", sourceLocation: sourceLocation)
        }
    }

    static func validate(_ reports: [String]) throws -> Result {
        try run("/usr/bin/env", ["python3", root + "/scripts/validate-report.py", schema] + reports)
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "sonde-cli-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Decodes a `--json` report from stdout into a dictionary tree.
    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    /// A free loopback TCP port (bound and released), never one this test process was given
    /// before: the kernel may hand a released port out again at once, and two peers told the same
    /// port then fail ("duplicate listen" in nginx). Bounded: 64 tries, then the last port.
    static func freePort() -> Int {
        var port = 0
        for _ in 0..<64 {
            port = boundAndReleasedPort()
            if handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        return port
    }

    private static let handedOut = Mutex<Set<Int>>([])

    private static func boundAndReleasedPort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// `sonde target` as a separate process, shared by the tests of this process.
/// It exits by itself when this test process goes away (it watches its parent).
enum TargetProcess {
    struct Endpoints: Decodable {
        var http: String
        var https: String
        var h2c: String
        var refused: String
        var ws: String
        var wss: String
        var caFile: String
        var uploads: String
        /// Accepts connections and never answers.
        var blackhole: String
    }

    static let endpoints: Result<Endpoints, any Error> = Result {
        let outPath = NSTemporaryDirectory() + "sonde-target-\(UUID().uuidString).out"
        // It ends with this test process (it watches its parent); --max-seconds only bounds a
        // target left behind. 900 s ended it under the whole suite once (a fresh clone's tests ran
        // 973 s beside a release build): a test after that got an empty reply.
        _ = try Harness.spawn(Harness.sonde, ["target", "--json", "--max-seconds", "7200", "--dir", Harness.temporaryDirectory()],
                              stdout: outPath, stderr: "/dev/null")
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: outPath, encoding: .utf8), let newline = text.firstIndex(of: "\n") {
                return try JSONDecoder().decode(Endpoints.self, from: Data(text[..<newline].utf8))
            }
            usleep(50_000)
        }
        throw Harness.SpawnError(message: "sonde target printed no endpoints within 30 s")
    }

    static func get() throws -> Endpoints { try endpoints.get() }
}

/// nginx on loopback with the fixture config (TLS h1/h2 and h2c), stopped by `stop()`.
final class Nginx {
    let directory = Harness.temporaryDirectory()
    let http = Harness.freePort()
    let https = Harness.freePort()
    let h2c = Harness.freePort()
    var certificate: String { directory + "/cert.pem" }

    /// - Parameter protocols: the TLS versions nginx offers (ssl_protocols).
    init(protocols: String = "TLSv1.2 TLSv1.3") throws {
        let result = try Harness.run("/bin/bash", [Harness.root + "/scripts/nginx-fixture.sh", directory, "\(http)", "\(https)", "\(h2c)",
                                                   protocols])
        guard result.status == 0 else { throw FixtureError(message: "nginx did not start: \(result.stderr)") }
    }

    func stop() {
        if let text = try? String(contentsOfFile: directory + "/nginx.pid", encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGQUIT)
        }
    }

    struct FixtureError: Error { var message: String }
}
