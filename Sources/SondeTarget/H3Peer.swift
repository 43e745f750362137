import Foundation

/// The target's HTTP/3 peer: hypercorn (on aioquic, from PyPI) on 127.0.0.1, serving HTTP/1.1 and
/// HTTP/2 over TCP+TLS and HTTP/3 over QUIC on the same port number, as real servers do on 443,
/// with hypercorn's own `Alt-Svc: h3=":PORT"; ma=3600` on every response. Swift has no QUIC
/// server package here, so an independent server plays the part; it serves the target's
/// `/bytes/N` (the `DeterministicBody` content, N ≤ 16 MiB) and `/`.
///
/// It is optional: without python3, hypercorn and aioquic, `start` returns nil and says why.
/// The server exits when sonde does (it watches its parent process) and after 2 hours at most.
/// Threading: `start` and `stop` from any one task at a time.
public final class H3Peer: @unchecked Sendable {
    private var process: Process?
    private let directory: String

    /// - Parameter directory: where the app, certificate, key (0600) and log are written: a
    ///   private folder (the demo's comes from mkdtemp), since python3 runs the app from there.
    public init(directory: String) {
        self.directory = directory
    }

    /// Why there is no HTTP/3 peer, when `start` returned nil.
    public private(set) var unavailableReason: String?

    /// Starts hypercorn with `identity` (a certificate for 127.0.0.1 from the target's CA) and
    /// returns its port once QUIC listens; nil when it cannot run here (`unavailableReason`).
    public func start(identity: TargetCertificates.Identity) async -> Int? {
        guard let python = await Self.python() else {
            unavailableReason = "no python3 with hypercorn and aioquic (pip install hypercorn aioquic)"
            return nil
        }
        do {
            let certificate = directory + "/h3-cert.pem", key = directory + "/h3-key.pem"
            let app = directory + "/h3_peer.py", log = directory + "/h3-peer.log"
            try identity.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
            try Self.writePrivately(identity.privateKeyPEM, to: key)
            try Self.app.write(toFile: app, atomically: true, encoding: .utf8)
            // A few tries: the port is found free over TCP, then hypercorn takes it over TCP and UDP.
            for _ in 0..<3 {
                let port = unusedLoopbackPort()
                FileManager.default.createFile(atPath: log, contents: nil)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: python)
                // -I: isolated (no script folder, PYTHONPATH or user site on the import path).
                process.arguments = ["-I", app, String(port), certificate, key]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
                try process.run()
                self.process = process
                // hypercorn says "Running on https://127.0.0.1:PORT (QUIC)" once it listens; 15 s at most.
                for _ in 0..<150 {
                    if !process.isRunning { break }
                    if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("(QUIC)") { return port }
                    try await Task.sleep(nanoseconds: 100_000_000)
                }
                await stop()
            }
            let tail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(300)) } ?? ""
            unavailableReason = "hypercorn did not start: " + String(tail.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        } catch {
            unavailableReason = "hypercorn did not start: \(error)"
        }
        return nil
    }

    public func stop() async {
        guard let process else { return }
        self.process = nil
        if process.isRunning { process.terminate() }
        for _ in 0..<50 where process.isRunning { try? await Task.sleep(nanoseconds: 100_000_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The first python3 on PATH that imports hypercorn and aioquic (isolated, 10 s at most
    /// each); nil when none does.
    static func python() async -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":").prefix(64) {
            let candidate = "\(folder)/python3"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            let check = Process()
            check.executableURL = URL(fileURLWithPath: candidate)
            check.arguments = ["-I", "-c", "import hypercorn, aioquic"]
            check.standardInput = FileHandle.nullDevice
            check.standardOutput = FileHandle.nullDevice
            check.standardError = FileHandle.nullDevice
            guard (try? check.run()) != nil else { continue }
            for _ in 0..<100 where check.isRunning { try? await Task.sleep(nanoseconds: 100_000_000) }
            if check.isRunning {
                check.terminate()
                continue
            }
            if check.terminationStatus == 0 { return candidate }
        }
        return nil
    }

    /// Creates `path` (which must not exist; never through a link) with mode 0600 and `text`.
    private static func writePrivately(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TargetError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw TargetError("cannot write \(path): \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    /// The ASGI app and its launcher: argv = port, certificate, key.
    static let app = #"""
    # sonde target's HTTP/3 peer (written by sonde; see H3Peer.swift).
    import asyncio, os, sys, threading, time
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    MAX = 16 << 20
    parent = os.getppid()

    def watch_parent():
        deadline = time.monotonic() + 7200
        while time.monotonic() < deadline and os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    def body(n):
        # DeterministicBody: byte i is "a" + i % 26
        pattern = bytes(range(ord("a"), ord("a") + 26))
        return (pattern * (n // 26 + 1))[:n]

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                kind = message["type"].replace(".startup", ".startup.complete").replace(".shutdown", ".shutdown.complete")
                await send({"type": kind})
                if message["type"] == "lifespan.shutdown":
                    return
        path = scope["path"]
        status, data = 404, b"not found\n"
        if path == "/":
            status, data = 200, b"sonde target (HTTP/3 peer): /bytes/N\n"
        elif path.startswith("/bytes/") and path[7:].isdigit() and len(path) < 20 and int(path[7:]) <= MAX:
            status, data = 200, body(int(path[7:]))
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/octet-stream"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data if scope["method"] != "HEAD" else b""})

    threading.Thread(target=watch_parent, daemon=True).start()
    config = Config()
    config.bind = ["127.0.0.1:" + sys.argv[1]]
    config.quic_bind = ["127.0.0.1:" + sys.argv[1]]
    config.certfile, config.keyfile = sys.argv[2], sys.argv[3]
    config.accesslog = None
    asyncio.run(serve(app, config))
    """#
}
