import SondeCore

/// A value a spec key holds: decoded from a suite file (YAML) or JSON, encoded back for
/// `--print-suite`.
public protocol SpecValue: Codable, Equatable, Sendable {}

extension Int: SpecValue {}
extension UInt64: SpecValue {}
extension Double: SpecValue {}
extension Bool: SpecValue {}
extension String: SpecValue {}
extension Array: SpecValue where Element: SpecValue {}
extension DurationValue: SpecValue {}
extension SizeValue: SpecValue {}

/// What walks a spec's keys (`CheckSpec.visitKeys`): the decoder, the encoder, the bound check,
/// the key table. Keys are visited in the order `--print-suite` writes them.
public protocol SpecKeyVisitor {
    /// A key that may be absent (nil: the kind's default applies).
    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?)
    /// A key every check of the kind has (`url`, `urls`).
    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T)
    /// Flags of which at most one is true, standing together for one choice (`http2`,
    /// `http3`, …; `ipv4`, `ipv6`); `conflict` says so when two are.
    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String)
}
