import Foundation
import SondeCore
import SondeHTTP

/// The transport settings of a resume run, in a form a worker process can read back from disk:
/// the parent writes them (mode 0600, they may hold credentials) for the processes it kills.
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
        return options
    }

    public var redactor: Redactor { Redactor(enabled: redact, extraNames: extraRedactions) }

    /// Creates a run's work directory and, when workers will run, writes these settings for them
    /// there, readable by this user only (they may hold credentials, -H); the runner removes the
    /// file when the run ends. Returns the settings file's path.
    func prepareWorkDirectory(_ directory: String, forWorkers: Bool) throws(TaskError) -> String {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TaskError(code: .localIOError, message: "cannot create \(directory): \(error.localizedDescription)")
        }
        let path = directory + "/worker-settings.json"
        guard forWorkers else { return path }
        guard let data = try? JSONEncoder().encode(self),
              FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw TaskError(code: .localIOError, message: "cannot write the worker settings \(path)")
        }
        return path
    }
}
