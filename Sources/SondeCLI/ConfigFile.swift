import Foundation
import SondeCore
import SondeSuite

/// A `--config FILE` (YAML; JSON is YAML too) with settings every run of a suite shares:
///
/// ```yaml
/// thresholds:            # added before any --threshold given on the command line
///   - wait.p95<200ms
///   - errors.rate<1%
/// redact: [x-api-key]    # more header / query parameter names to redact
/// baseline: Reports/20261121T220000Z-probe-1a2b
/// prom: /var/lib/node_exporter/textfile/sonde.prom
/// ```
///
/// Unknown keys, wrong types and malformed thresholds are errors that name the file and the key,
/// so a typo never silently turns a gate off. Read as every YAML file from outside is
/// (`YAMLDocument`: at most 1 MiB, at most 100,000 nodes with aliases expanded), so a hostile
/// file is refused, not obeyed.
struct ConfigFile: Equatable, Decodable {
    var thresholds: [String] = []
    var redact: [String] = []
    var baseline: String?
    var prom: String?

    private enum Key: String, CodingKey, CaseIterable { case thresholds, redact, baseline, prom }

    static let keys = Key.allCases.map(\.rawValue)

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    init() {}

    static func load(path: String) throws(Problem) -> ConfigFile {
        let config: ConfigFile?
        do throws(SuiteLoader.Failure) { config = try YAMLDocument.read(ConfigFile.self, path: path, what: "--config \(path)") } catch {
            // Every message names the file; a problem at a place in it adds the line and column.
            throw Problem(description: error.problems.map { problem in
                problem.line == 0 ? problem.message
                    : problem.message.hasPrefix("--config") ? "\(problem.message) (line \(problem.line), column \(problem.column))"
                    : "--config \(problem.description)"
            }.joined(separator: "\n"))
        }
        guard let config else { return ConfigFile() }  // an empty file
        for expression in config.thresholds {
            do throws(ThresholdSyntaxError) { _ = try Threshold(parsing: expression, declared: CheckKinds.sonde.declaredMetrics) } catch {
                throw Problem(description: "--config \(path): \(error.message)")
            }
        }
        return config
    }

    /// Every key known, each text or a list of text (a number is its text).
    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<Key>
        do { container = try decoder.container(keyedBy: Key.self) } catch {
            throw ProblemText("must be a mapping of \(Self.keys.joined(separator: ", "))")
        }
        if let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.first(where: { Key(stringValue: $0.stringValue) == nil }) {
            throw ProblemText("unknown key '\(unknown.stringValue)'; known keys: \(Self.keys.joined(separator: ", "))")
        }
        thresholds = try Self.texts(container, .thresholds) ?? []
        redact = try Self.texts(container, .redact) ?? []
        baseline = try Self.texts(container, .baseline, one: true)?.first
        prom = try Self.texts(container, .prom, one: true)?.first
    }

    private static func texts(_ container: KeyedDecodingContainer<Key>, _ key: Key, one: Bool = false) throws -> [String]? {
        guard container.contains(key) else { return nil }
        if let text = try? container.decode(String.self, forKey: key) { return [text] }
        if !one, let list = try? container.decode([String].self, forKey: key) { return list }
        throw ProblemText("'\(key.rawValue)' must be text" + (one ? "" : " or a list of text"))
    }

    /// A problem in words, as `YAMLDocument` passes it on.
    private struct ProblemText: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
