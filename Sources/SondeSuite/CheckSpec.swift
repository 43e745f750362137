import SondeCore
import SondeLink

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
    /// The kind this spec is of (`CheckKind`), whose `Spec` this is.
    associatedtype Kind: CheckKind where Kind.Spec == Self
    /// A spec with its required keys empty: what decoding fills in, and what the key table is read from.
    static var unfilled: Self { get }
    /// Visits every key of this kind once, in the order `--print-suite` writes them: the one
    /// declaration of the kind's keys (`SpecKey`). Decoding, encoding, the bound checks, the key
    /// table (`keys`, `pathKeys`, `CheckKinds.valueTypes`) and the suite schema follow from it.
    mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V)
    /// The check's own pass/fail rules (`--threshold`), as written.
    var thresholds: [String]? { get set }
    /// Everything that keeps this spec from running, key by key (empty when it can run). Checks
    /// values and that named files are readable; reads no network.
    func problems() -> [SpecProblem]
    /// The spec with every path-valued key that is relative resolved against `folder`.
    func resolvingPaths(against folder: String) -> Self
    /// The URLs the check reaches, as written (a probe's or an audit's, or the one of a soak or resume).
    var urls: [String] { get }
    /// The emulated link the check runs over (`link`), parsed; nil without one.
    var linkProfile: LinkProfile? { get }
    /// Adds, unfilled, each of `types` that extends this kind (`ExtensibleSpec`); nothing for a
    /// kind that takes no extensions.
    mutating func attach(_ types: [any KindExtension.Type])
}

extension CheckSpec {
    /// A kind without extensions keeps none.
    public mutating func attach(_ types: [any KindExtension.Type]) {}

    /// The spec's kind, for a spec held as `any CheckSpec` (a suite's check).
    public var kind: any CheckKind.Type { Kind.self }

    /// `sonde serve`'s bound on one run of this check without `run-timeout:` (s): ten minutes, or a
    /// soak's duration (and idle-timeout discovery) and a minute more (`CheckKind.defaultRunTimeout`).
    public var defaultRunTimeout: Double { Kind.defaultRunTimeout(for: self) }

    /// Whether `other` is a spec of the same kind equal to this one: `Equatable` across kinds.
    public func isEqual(_ other: any CheckSpec) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }

    /// `path` against `folder` unless it is absolute (or empty).
    public static func resolve(path: String?, against folder: String) -> String? {
        guard let path, !path.isEmpty, !path.hasPrefix("/") else { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
