/// The kinds of check a suite declares, one per command that runs a check.
public enum CheckKind: String, Codable, CaseIterable, Sendable {
    case probe, soak, resume
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
/// default applies when the check runs, and `--print-suite` leaves it out.
public protocol CheckSpec: Codable, Equatable, Sendable {
    static var kind: CheckKind { get }
    /// Every key a check of this kind takes, in the order `--print-suite` writes them.
    static var keys: [String] { get }
    /// Keys whose values are file paths: a relative one in a suite file is read from the suite file's folder.
    static var pathKeys: [String] { get }
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
