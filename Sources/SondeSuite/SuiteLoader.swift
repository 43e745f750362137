import Foundation
import Yams

/// Reads suite files (`sonde run SUITE.yaml`), validating the whole file before anything runs and
/// reporting every problem found, each at its place in the file.
///
/// The format (see `examples/suites/` and `Reports/schema/sonde-suite.schema.json`):
///
/// ```yaml
/// parallel: 2                 # optional, 1...Suite.maxParallel (default 1)
/// defaults:                   # every check inherits these; a check's own value wins
///   cacert: ca.pem
///   thresholds: ["errors.rate<1%"]
/// checks:                     # 1...Suite.maxChecks of them
///   - name: api               # unique, SuiteCheck.isValid(name:)
///     kind: probe             # a kind of `CheckKinds` (probe | soak | resume | audit | …)
///     urls: [https://api.example.com/v1/health]
///     thresholds: ["wait.p95<200ms"]
/// ```
///
/// Rules, in the order they are applied:
/// 1. The text goes through `BoundedYAML`'s bounds first (size, alias expansion, depth): a bomb is
///    refused before Yams builds anything.
/// 2. Top-level keys are only `parallel`, `defaults`, `checks`. A key in `defaults` must be a key of
///    at least one kind (`name` and `kind` belong to checks); a check inherits it when its kind has
///    the key. A check's own keys must be keys of its kind or of its
///    kind's extensions (`CheckKinds.keys(of:)`).
/// 3. `${NAME}` in any scalar value is replaced by the environment variable `NAME` (an unset one is
///    an error at that scalar); `$$` stands for one `$`; any other `$` is kept as written. Mapping
///    keys are never expanded.
/// 4. `thresholds` add up (the defaults' list, then the check's); for every other key the check's
///    value wins over the default.
/// 5. The merged check decodes as its kind's `CheckSpec`; relative paths in `T.pathKeys` are
///    resolved against the suite file's folder; then the spec's `problems()` are errors too.
///
/// Every problem is a `Problem` at the line and column of the value (or key) it concerns, with the
/// key it concerns: `FILE:LINE:COLUMN: KEY: message`.
public enum SuiteLoader {
    /// One thing wrong with a suite file, where it is.
    ///
    /// Invariant: `line` and `column` are 1-based (columns count Unicode scalars, as libyaml does),
    /// or both 0 when the problem concerns the file as a whole (it cannot be read, is too large).
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var column: Int
        /// The key the problem concerns (`count`, `thresholds`, `name`), nil for the file or a check as a whole.
        public var key: String?
        /// The problem in words, without the position or the key; may span lines (a threshold's caret).
        public var message: String

        public init(file: String, line: Int, column: Int, key: String?, message: String) {
            self.file = file
            self.line = line
            self.column = column
            self.key = key
            self.message = message
        }

        /// `FILE:LINE:COLUMN: KEY: message` (`FILE: message` for the file as a whole).
        public var description: String {
            let place = line > 0 ? "\(file):\(line):\(column)" : file
            return "\(place): " + (key.map { "\($0): " } ?? "") + message
        }
    }

    /// Everything wrong with a suite file, in the order of the file (never empty when thrown).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var problems: [Problem]

        public init(problems: [Problem]) { self.problems = problems }

        /// One problem a line (a problem's own continuation lines follow it).
        public var description: String { problems.map(\.description).joined(separator: "\n") }

        /// One problem a line, as an HTTP answer may say it when the config path may be a link to a
        /// file nobody should read: `FILE:LINE:COLUMN` alone for a problem at a place in the file
        /// (its key and message can quote the file: an unknown key is the file's own text), the
        /// message for one about the file as a whole (sonde's own words: empty, too large, not UTF-8).
        public var places: String {
            problems.map { $0.line > 0 ? "\($0.file):\($0.line):\($0.column)" : $0.description }.joined(separator: "\n")
        }
    }

    /// How the file is named in messages about it as a whole.
    static let fileWords = "the suite file"

    /// Reads the suite file at `path` (a regular UTF-8 file of at most `BoundedYAML.maxBytes`) and
    /// validates all of it against the kinds of `kinds`. Relative paths in it are resolved against `path`'s folder.
    public static func load(path: String, kinds: CheckKinds, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Failure) -> Loaded {
        let text = try readText(path: path, what: fileWords)
        let folder = (path as NSString).deletingLastPathComponent
        return try parse(text, file: path, folder: folder.isEmpty ? "." : folder, kinds: kinds, environment: environment)
    }

    /// Validates the suite `text` as if read from `file` (the name messages use), resolving
    /// relative paths against `folder`.
    public static func parse(_ text: String, file: String, folder: String, kinds: CheckKinds, environment: [String: String]) throws(Failure) -> Loaded {
        guard let root = try compose(text, file: file, what: fileWords) else {
            throw Failure(problems: [Problem(file: file, line: 1, column: 1, key: nil, message: "the suite is empty: it needs checks: with at least one check")])
        }
        var reader = SuiteReader(file: file, folder: folder, environment: environment, kinds: kinds)
        let loaded = reader.read(root)
        guard reader.problems.isEmpty, let loaded else { throw Failure(problems: reader.sortedProblems()) }
        return loaded
    }

    /// The text of the YAML file at `path`: a regular UTF-8 file of at most `BoundedYAML.maxBytes`
    /// (`what` names it in the problem otherwise). Suites, serve's config and `YAMLDocument` read so.
    package static func readText(path: String, what: String) throws(Failure) -> String {
        func failure(_ message: String) -> Failure {
            Failure(problems: [Problem(file: path, line: 0, column: 0, key: nil, message: message)])
        }
        let bytes: [UInt8]
        do throws(BoundedYAML.Problem) { bytes = try BoundedYAML.read(path: path, what: what) } catch { throw failure(error.description) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("\(what) is not UTF-8 text") }
        return text
    }

    /// The YAML document of `text` (nil when empty), after `BoundedYAML`'s bounds; `what` names the file in messages.
    package static func compose(_ text: String, file: String, what: String) throws(Failure) -> Node? {
        func failure(line: Int = 0, column: Int = 0, _ message: String) -> Failure {
            Failure(problems: [Problem(file: file, line: line, column: column, key: nil, message: message)])
        }
        guard text.utf8.count <= BoundedYAML.maxBytes else {
            throw failure("\(what) is larger than \(BoundedYAML.maxBytes / 1024) KiB, the most sonde reads")
        }
        do throws(BoundedYAML.Problem) {
            try BoundedYAML.checkExpansion(text, what: what)
        } catch {
            let place = SuiteBounds.place(ofFailureIn: text, what: what)
            throw failure(line: place?.line ?? 0, column: place?.column ?? 0, error.description)
        }
        do {
            return try Yams.compose(yaml: text)
        } catch let error as YamlError {
            let (mark, message) = describe(error)
            throw failure(line: mark?.line ?? 0, column: mark?.column ?? 0, message)
        } catch {
            throw failure("\(what) is not valid YAML: \(error)")
        }
    }

    /// A Yams error's position and words (libyaml's problem and context, without the echo of the text).
    static func describe(_ error: YamlError) -> (Mark?, String) {
        func words(_ context: YamlError.Context?, _ problem: String) -> String {
            "not valid YAML: \(problem)" + (context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? "")
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _), let .composer(context, problem, mark, _):
            return (mark, words(context, problem))
        case let .duplicatedKeysInMapping(duplicates, context):
            return (context.mark, "not valid YAML: the key \(duplicates.map { "'\($0)'" }.joined(separator: ", ")) appears more than once in one mapping")
        case let .reader(problem, _, _, _):
            return (nil, "not valid YAML: \(problem)")
        default:
            return (nil, "not valid YAML: \(error)")
        }
    }
}
