/// One key of a check kind, declared once: its name (the suite key, and the command's long
/// option), its type, its bound, and its words (the command line's help, the suite schema's
/// description). Each kind lists its keys in `CheckSpec.visitKeys`, and from that list follow the
/// spec's decoding and encoding (suite files, `--print-suite`), its bound checks, the key table
/// (`CheckKinds.valueTypes`, `keys`, `pathKeys`) and the suite JSON Schema's properties
/// (`SuiteSchema`). The commands take each option's name and help from the same key (SondeCLI's
/// `NameSpecification.key`, `ArgumentHelp.key`).
///
/// Invariant: two kinds that share a key name share its type (a test checks it); they may word
/// it differently (resume's `http3` runs trials, probe's is a version flag).
public struct SpecKey: Sendable {
    /// Bounds of a value from outside, checked by `problems()` and written into the schema.
    public enum Bound: Sendable, Equatable {
        /// A whole number within the range.
        case integer(ClosedRange<Int>)
        /// A whole number at least this.
        case atLeast(Int)
        /// A number within the range.
        case number(ClosedRange<Double>)
        /// A duration within the range, in seconds (the schema cannot say it: durations are text).
        case duration(ClosedRange<Double>)
    }

    /// What the schema says beyond the type, where the suite file accepts more than the type's form.
    public enum SchemaShape: Sendable, Equatable {
        case standard
        /// Text, or a number written bare (`expect-status: 200`).
        case textOrInteger
        /// A list whose items are text or bare byte counts (`interrupt-at: [1048576, 50%]`).
        case offsets
        /// A list whose items are URLs or `{name, url}` mappings (a probe's `urls`, `ProbeRequest`).
        case requests
    }

    public let name: String
    public let type: SuiteValueType
    /// The command's short option (`-k`), if any.
    public let short: Character?
    /// The command line's help.
    public let help: String
    /// The suite schema's description.
    public let summary: String
    /// The help's name for the value (`duration`, `file`).
    public let valueName: String?
    public let bound: Bound?
    /// The values a text key takes, when it takes only these.
    public let choices: [String]
    /// Whether the value is a file path (a relative one in a suite is read from the suite's folder).
    public let isPath: Bool
    public let schemaShape: SchemaShape

    public init(_ name: String, _ type: SuiteValueType, short: Character? = nil, bound: Bound? = nil, choices: [String] = [],
                isPath: Bool = false, schemaShape: SchemaShape = .standard, valueName: String? = nil, summary: String, help: String) {
        self.name = name
        self.type = type
        self.short = short
        self.bound = bound
        self.choices = choices
        self.isPath = isPath
        self.schemaShape = schemaShape
        self.valueName = valueName
        self.summary = summary
        self.help = help
    }
}
