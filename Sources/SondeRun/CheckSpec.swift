import SondeCore

/// The kinds of check a suite declares, one per command that runs a check.
public enum CheckKind: String, Codable, CaseIterable, Sendable {
    case probe, soak, resume, audit

    /// Whether `threshold` judges what a check of this kind measures: soaks the `ws.*` metrics,
    /// probes every other one (phases, errors, reuse, tasks); resume and audit checks have none
    /// (their trials and verdict, or their findings, pass or fail by themselves). A threshold in a suite's `defaults` applies
    /// to the checks it judges; in a check of another kind it is an error.
    public func judges(_ threshold: Threshold) -> Bool {
        let soakMetric = threshold.metric.path.hasPrefix("ws.")
        switch self {
        case .probe: return !soakMetric
        case .soak: return soakMetric
        case .resume, .audit: return false
        }
    }

    /// What a check of this kind can be judged by, for messages.
    var metricsHint: String {
        switch self {
        case .probe: return "a probe check is judged by the probe metrics (phases, errors, reuse, tasks), not ws.*"
        case .soak: return "a soak check is judged by the ws.* metrics (ws.ping.p95, ws.reconnects.count, …)"
        case .resume: return "a resume check has no threshold metrics: its verdict and trials pass or fail by themselves"
        case .audit: return "an audit check has no threshold metrics: its findings pass or fail it (fail-on)"
        }
    }
}

/// What is wrong with a check spec: the key it concerns (nil for the spec as a whole) and the
/// problem in words, without the key (the command line says `--key …`, a suite file `file:line:column: key: …`).
public struct SpecProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var key: String?
    public var message: String

    public init(key: String?, _ message: String) {
        self.key = key
        self.message = message
    }

    /// As the command line says it: `--count must be between 1 and 10000000`, `--header '…' is not …`.
    public var description: String {
        guard let key else { return message }
        guard let option = SpecProblem.optionName(forKey: key) else { return "\(key == "urls" ? "URL" : key): \(message)" }
        return "--\(option) \(message)"
    }

    /// The long option a suite key stands for: the key itself, or its singular for the keys of
    /// repeatable options (`headers` → `header`); nil for `url`/`urls` (positional arguments).
    public static func optionName(forKey key: String) -> String? {
        switch key {
        case "url", "urls": return nil
        case "headers": return "header"
        case "thresholds": return "threshold"
        case "subprotocols": return "subprotocol"
        default: return key
        }
    }
}

/// The spec of one check of one kind: plain `Codable` values produced alike by a command's flags,
/// by a suite file and (later) by the scheduler, whose keys are the command's long option names
/// without the dashes (repeatable options in the plural: `headers`, `thresholds`, `subprotocols`),
/// `url`/`urls` for the positional arguments. A property that is nil was not given: the kind's
/// default applies when the check runs, and `--print-suite` leaves it out. `Codable` comes from
/// `visitKeys` (SpecKeyCoding.swift).
public protocol CheckSpec: Codable, Equatable, Sendable {
    static var kind: CheckKind { get }
    /// A spec with its required keys empty: what decoding fills in, and what the key table is read from.
    static var unfilled: Self { get }
    /// Visits every key of this kind once, in the order `--print-suite` writes them: the one
    /// declaration of the kind's keys (`SpecKey`). Decoding, encoding, the bound checks, the key
    /// table (`keys`, `pathKeys`, `SuiteValueType.of`) and the suite schema follow from it.
    mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V)
    /// The check's own pass/fail rules (`--threshold`), as written.
    var thresholds: [String]? { get set }
    /// Everything that keeps this spec from running, key by key (empty when it can run). Checks
    /// values and that named files are readable; reads no network.
    func problems() -> [SpecProblem]
    /// The spec with every path-valued key that is relative resolved against `folder`.
    func resolvingPaths(against folder: String) -> Self
}

extension CheckSpec {
    /// `path` against `folder` unless it is absolute (or empty).
    public static func resolve(path: String?, against folder: String) -> String? {
        guard let path, !path.isEmpty, !path.hasPrefix("/") else { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
