import Foundation
import SondeCore
import SondeHTTP

/// The transport settings of a resume run, in a form a worker process can read: the parent hands
/// them to each process it kills through a pipe (`WorkerCommand.run(input:)`), never through a
/// file, because they may hold credentials (`-H 'Authorization: …'`).
///
/// Invariant: the settings are never written to disk, so no end of a run (a SIGKILL included)
/// leaves a secret of theirs at rest.
public struct TransferSettings: Codable, Sendable, Equatable {
    public var headers: [HeaderField] = []
    public var insecure = false
    public var caCertPath: String?
    public var pinnedPublicKey: String?
    /// "any", "v4" or "v6".
    public var ipVersion = "any"
    public var resolve: [String] = []
    public var proxy: String?
    public var connectTimeoutMs: Int?
    /// A transfer that receives nothing for this long fails with `timedOut`; nil for no limit.
    public var stallTimeoutMs: Int? = 30_000
    public var maxRedirects = 10
    /// false: redact nothing (`--no-redact`).
    public var redact = true
    /// Header and query parameter names to redact besides the usual ones (`--redact`).
    public var extraRedactions: [String] = []
    /// The block of local ports every connection binds to (`--capture`, whose filter names it);
    /// workers read it back with the rest, so their connections are captured too.
    public var localPorts: ClosedRange<Int>?
    /// The HTTP version asked for (`HTTPVersionPreference`'s raw value; `--http3`, `--http3-only`).
    public var httpVersion = HTTPVersionPreference.automatic.rawValue

    public init() {}

    public var probeOptions: ProbeOptions {
        var options = ProbeOptions()
        options.insecure = insecure
        options.caCertPath = caCertPath
        options.pinnedPublicKey = pinnedPublicKey
        options.ipVersion = IPVersion(rawValue: ipVersion) ?? .any
        options.resolve = resolve
        options.proxy = proxy
        options.connectTimeoutMs = connectTimeoutMs
        options.maxRedirects = maxRedirects
        options.localPorts = localPorts
        options.httpVersion = HTTPVersionPreference(rawValue: httpVersion) ?? .automatic
        return options
    }

    public var redactor: Redactor { Redactor(enabled: redact, extraNames: extraRedactions) }

    /// The largest settings document a worker reads (bytes); more is an error, not a hang.
    public static let maxEncodedSize = 1 << 20

    /// Creates a run's work directory (`transfers/` in the run folder: a real folder, never a
    /// symbolic link, readable by this user only).
    static func prepareWorkDirectory(_ directory: String) throws(TaskError) {
        try NoFollowFile.ensureDirectory(directory, mode: 0o700)
    }

    /// These settings as the bytes a worker reads from its settings descriptor.
    func encodedForWorker() throws(TaskError) -> [UInt8] {
        guard let data = try? JSONEncoder().encode(self) else {
            throw TaskError(code: .internalError, message: "cannot encode the worker settings")
        }
        guard data.count <= Self.maxEncodedSize else {
            throw TaskError(code: .localIOError, message: "the transfer settings (headers and all) take \(data.count) bytes; "
                + "a worker takes at most \(Self.maxEncodedSize) bytes (1 MiB)")
        }
        return Array(data)
    }

    /// Reads the settings a parent wrote to `descriptor` (to its end, at most `maxEncodedSize`
    /// bytes) and closes it.
    static func read(fromDescriptor descriptor: Int32) throws(TaskError) -> TransferSettings {
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= maxEncodedSize {
            let count = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw TaskError(code: .localIOError, message: "cannot read the worker settings from descriptor \(descriptor): \(systemErrorMessage())")
            }
            if count == 0 { break }
            bytes += block[0..<count]
        }
        guard bytes.count <= maxEncodedSize else {
            throw TaskError(code: .localIOError, message: "the worker settings are longer than \(maxEncodedSize) bytes (1 MiB)")
        }
        do {
            return try JSONDecoder().decode(TransferSettings.self, from: Data(bytes))
        } catch {
            throw TaskError(code: .localIOError, message: "the worker settings are not valid: \(error)")
        }
    }
}
