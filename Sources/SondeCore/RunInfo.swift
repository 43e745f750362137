/// The `tool` section: what produced the report.
public struct ToolInfo: Codable, Sendable, Equatable {
    public var name: String
    public var version: String
    /// The running libcurl's version, e.g. "8.23.0".
    public var libcurl: String?
    public var features: [String]
    /// The file of that libcurl (which one the dynamic linker picked).
    public var libcurlPath: String? = nil
    /// libcurl's TLS library as libcurl names it, e.g. "OpenSSL/3.6.5".
    public var tlsLibrary: String? = nil
    /// The libssl file libcurl uses (the one sonde's TLS reader calls).
    public var tlsLibraryPath: String? = nil
    /// e.g. "nghttp2/1.68.0"; nil without HTTP/2.
    public var http2Library: String? = nil
    /// e.g. "ngtcp2/1.25.0 nghttp3/1.18.0"; nil without HTTP/3.
    public var quicLibrary: String? = nil
    /// What that libcurl lacks of what sonde can use ("http3: …", "connId: …", "queueTime: …").
    public var libcurlLacks: [String]? = nil
    /// The CA bundle transfers verify against when no --cacert is given.
    public var caBundle: String? = nil
    public init(name: String = "sonde", version: String = SondeVersion.current, libcurl: String?, features: [String]) {
        self.name = name
        self.version = version
        self.libcurl = libcurl
        self.features = features
    }
}

public enum SondeVersion {
    public static let current = "0.1.0"
}

/// The `run` section: which command ran, when, with which safety-relevant settings, and how it ended.
public struct RunInfo: Codable, Sendable, Equatable {
    public var id: String
    public var command: String
    /// The command line, redacted.
    public var arguments: [String]
    public var startedAt: Timestamp
    public var finishedAt: Timestamp?
    public var status: RunStatus
    /// True when TLS verification was switched off (`--insecure`).
    public var insecure: Bool
    /// False when the user asked for `--no-redact`.
    public var redacted: Bool
    /// What the user should know about how the run measured (library limits, workarounds).
    public var warnings: [String]
    /// "required" or "optional" when the run asked for a live capture (`--capture`, and `sonde demo`
    /// by default); absent otherwise. Report rendering reads it to match transactions to packets.
    public var capture: String?
    /// The emulated link of a single-check run (`--link`); its counters arrive with the run's end.
    /// Absent on the machine's own network, and in suites (each check carries its own).
    public var link: LinkUse?
    /// What the run measured (its checks and URLs), so that a baseline of something else is
    /// refused (`--baseline`); absent in runs written before sonde recorded it, and in merges.
    public var subject: RunSubject?

    public init(id: String, command: String, arguments: [String], startedAt: Timestamp, finishedAt: Timestamp? = nil,
                status: RunStatus, insecure: Bool, redacted: Bool, warnings: [String] = [], capture: String? = nil, link: LinkUse? = nil,
                subject: RunSubject? = nil) {
        self.id = id
        self.command = command
        self.arguments = arguments
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.insecure = insecure
        self.redacted = redacted
        self.warnings = warnings
        self.capture = capture
        self.link = link
        self.subject = subject
    }

    /// A run id that sorts by time and does not collide: `20261121T222600Z-probe-3f9a`.
    public static func makeID(command: String, at time: Timestamp) -> String {
        let suffix = String(UInt16.random(in: 0...UInt16.max), radix: 16)
        return "\(time.compactUTC)-\(command)-\(String(repeating: "0", count: 4 - suffix.count))\(suffix)"
    }
}
