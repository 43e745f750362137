import Foundation
import SondeCore
import SondeHTTP
import SondeTransfer

/// The spec of a resume check (`sonde resume`, `kind: resume`): a download's resumability verdict
/// and interrupted-download trials, or (with `upload`) resumable-upload trials. Keys are
/// `sonde resume`'s long options (see `CheckSpec`).
public struct ResumeSpec: CheckSpec {
    public typealias Kind = ResumeKind
    /// The one URL, as `CheckSpec` lists a check's.
    public var urls: [String] { [url] }

    public var url: String
    /// A file to run upload trials of instead of download trials.
    public var upload: String?
    /// With `upload`: `ietf` (default) or `tus`.
    public var `protocol`: String?
    public var interopVersion: Int?
    /// Only the verdict: no reference download, no trials.
    public var check: Bool?
    /// The verdict and the trials over HTTP/3, racing QUIC against TCP (`http3`) or QUIC only (`http3-only`).
    public var http3: Bool?
    public var http3Only: Bool?
    public var trials: Int?
    public var interruptsPerTrial: Int?
    /// Offsets as written: bytes (`512KiB`) or shares (`50%`); a comma-separated item counts as several.
    public var interruptAt: [String]?
    public var kinds: String?
    public var seed: UInt64?
    public var keepFiles: Bool?
    public var retries: Int?
    public var backoffInitial: DurationValue?
    public var backoffMax: DurationValue?
    public var backoffMultiplier: Double?
    public var jitter: String?
    public var stallTimeout: DurationValue?
    public var connectTimeout: DurationValue?
    public var headers: [String]?
    public var insecure: Bool?
    public var cacert: String?
    public var resolve: [String]?
    /// The emulated link (`LinkKey`), as written.
    public var link: String?
    public var thresholds: [String]?

    public init(url: String) { self.url = url }

    /// The defaults of what is not given.
    public static let defaults = (trials: 10, interruptsPerTrial: 1, kinds: "abort,drop,kill", retries: 5, backoffInitial: 0.2,
                                  backoffMax: 10.0, multiplier: 2.0, stallTimeout: 30.0, interopVersion: 8)

    public static var unfilled: ResumeSpec { ResumeSpec(url: "") }

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visitRequired(.url, &url)
        v.visit(.upload, &upload)
        v.visit(.uploadProtocol, &`protocol`)
        v.visit(.interopVersion, &interopVersion)
        v.visit(.check, &check)
        v.visit(.resumeHTTP3, &http3)
        v.visit(.resumeHTTP3Only, &http3Only)
        v.visit(.trials, &trials)
        v.visit(.interruptsPerTrial, &interruptsPerTrial)
        v.visit(.interruptAt, &interruptAt)
        v.visit(.kinds, &kinds)
        v.visit(.seed, &seed)
        v.visit(.keepFiles, &keepFiles)
        v.visit(.retries, &retries)
        v.visit(.backoffInitial, &backoffInitial)
        v.visit(.backoffMax, &backoffMax)
        v.visit(.backoffMultiplier, &backoffMultiplier)
        v.visit(.jitter, &jitter)
        v.visit(.stallTimeout, &stallTimeout)
        v.visit(.connectTimeout, &connectTimeout)
        v.visit(.headers, &headers)
        v.visit(.insecure, &insecure)
        v.visit(.cacert, &cacert)
        v.visit(.resolve, &resolve)
        v.visit(.link, &link)
        v.visit(.thresholds, &thresholds)
    }

    public func problems() -> [SpecProblem] {
        var problems: [SpecProblem] = []
        if let problem = URLArgument.problem(url, key: "url", schemes: URLArgument.http) {
            problems.append(problem)
        } else if let problem = StreamingTransfer.problem(url: url) {
            problems.append(SpecProblem(key: "url", problem))
        }
        if let upload {
            if let problem = SpecRules.readableFile(upload, key: "upload", maxBytes: Int64.max) { problems.append(problem) }
            if check == true { problems.append(SpecProblem(key: "check", "is for downloads; upload trials check the protocol as they go")) }
            if let name = `protocol`, name != "ietf" && name != "tus" { problems.append(SpecProblem(key: "protocol", "must be ietf or tus")) }
        }
        if http3 == true && http3Only == true { problems.append(SpecProblem(key: "http3-only", "choose one of http3 and http3-only")) }
        if httpVersion.wantsHTTP3 && !url.lowercased().hasPrefix("https://") {
            problems.append(SpecProblem(key: http3Only == true ? "http3-only" : "http3", "needs an https:// URL (QUIC is TLS)"))
        }
        if let problem = SpecRules.plainText(url, key: "url") { problems.append(problem) }
        problems += boundProblems
        problems += [
            headerProblem,
            resolveProblem,
            tlsProblem,
            linkProblem,
            jitterProblem,
            thresholdProblem,
            parsedOffsets().failure,
            parsedKinds().failure,
        ].compactMap { $0 }
        if let problem = retryPolicy.backoff.problem { problems.append(SpecProblem(key: problem.key, problem.message)) }
        return problems
    }

    public func resolvingPaths(against folder: String) -> ResumeSpec {
        var spec = self
        spec.upload = Self.resolve(path: upload, against: folder)
        spec.cacert = Self.resolve(path: cacert, against: folder)
        return spec
    }

    /// `interrupt-at` as offsets (nil when not given).
    public func parsedOffsets() -> Result<[TrialPlan.Offset]?, SpecProblem> {
        let items = (interruptAt ?? []).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        guard !items.isEmpty else { return .success(nil) }
        var offsets: [TrialPlan.Offset] = []
        for item in items {
            guard let offset = TrialPlan.Offset(parsing: item) else {
                return .failure(SpecProblem(key: "interrupt-at", "'\(item)' is not a byte offset (1048576, 512KiB, 4MB) or a share (50%)"))
            }
            offsets.append(offset)
        }
        return .success(offsets)
    }

    /// `kinds` as interruption kinds, in turn.
    public func parsedKinds() -> Result<[InterruptionKind], SpecProblem> {
        let names: [String: InterruptionKind] = [
            "abort": .clientAbort, "clientAbort": .clientAbort, "drop": .connectionDrop, "connectionDrop": .connectionDrop,
            "kill": .processKill, "processKill": .processKill,
        ]
        var kinds: [InterruptionKind] = []
        for name in (self.kinds ?? Self.defaults.kinds).split(separator: ",") {
            guard let kind = names[name.trimmingCharacters(in: .whitespaces)] else {
                return .failure(SpecProblem(key: "kinds", "'\(name)' is not one of abort, drop, kill"))
            }
            kinds.append(kind)
        }
        guard !kinds.isEmpty else { return .failure(SpecProblem(key: "kinds", "needs at least one of abort, drop, kill")) }
        return .success(kinds)
    }

    public var retryPolicy: RetryPolicy {
        let d = Self.defaults
        return RetryPolicy(backoff: BackoffPolicy(initialMs: (backoffInitial?.seconds ?? d.backoffInitial) * 1000,
                                                  maxMs: (backoffMax?.seconds ?? d.backoffMax) * 1000, multiplier: backoffMultiplier ?? d.multiplier,
                                                  jitter: (try? SpecRules.jitter(jitter).get()) ?? .full),
                           maxRetries: retries ?? d.retries)
    }

    /// The HTTP version the check asks for.
    public var httpVersion: HTTPVersionPreference {
        http3Only == true ? .http3Only : (http3 == true ? .http3 : .automatic)
    }

    /// The transfer settings every request of the check uses (`redact`, `extraRedactions`: the run's `--no-redact`, `--redact`).
    public func settings(redact: Bool, extraRedactions: [String]) -> TransferSettings {
        var settings = TransferSettings()
        settings.headers = headerFields
        settings.insecure = insecure ?? false
        settings.caCertPath = cacert
        settings.resolve = resolve ?? []
        settings.connectTimeoutMs = connectTimeout.map(SpecRules.milliseconds)
        settings.stallTimeoutMs = SpecRules.milliseconds(stallTimeout ?? DurationValue(seconds: Self.defaults.stallTimeout))
        settings.redact = redact
        settings.extraRedactions = extraRedactions
        settings.httpVersion = httpVersion.rawValue
        return settings
    }

    /// The download trials' options (work directory set by the runner).
    public var downloadOptions: DownloadTrialOptions {
        var options = DownloadTrialOptions(workDirectory: "")
        options.interruptsPerTrial = interruptsPerTrial ?? Self.defaults.interruptsPerTrial
        options.interruptAt = (try? parsedOffsets().get()) ?? nil
        options.kinds = (try? parsedKinds().get()) ?? []
        options.keepFiles = keepFiles ?? false
        options.retry = retryPolicy
        return options
    }

    /// The upload trials' options, with `upload` given (work directory set by the runner).
    public var uploadOptions: UploadTrialOptions? {
        guard let upload else { return nil }
        let uploadProtocol: UploadProtocol = `protocol` == "tus" ? .tus : .ietf(version: interopVersion ?? Self.defaults.interopVersion)
        var options = UploadTrialOptions(filePath: upload, uploadProtocol: uploadProtocol, workDirectory: "")
        let download = downloadOptions
        options.interruptsPerTrial = download.interruptsPerTrial
        options.interruptAt = download.interruptAt
        options.kinds = download.kinds
        options.retry = download.retry
        return options
    }
}
