import Foundation
import SondeCore
import SondeRun

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
/// so a typo never silently turns a gate off. The file is read through `BoundedYAML` (at most
/// 1 MiB, at most 100,000 nodes with aliases expanded), so a hostile file is refused, not obeyed.
struct ConfigFile: Equatable {
    var thresholds: [String] = []
    var redact: [String] = []
    var baseline: String?
    var prom: String?

    static let keys = ["thresholds", "redact", "baseline", "prom"]

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    static func load(path: String) throws(Problem) -> ConfigFile {
        let document: Any?
        do throws(BoundedYAML.Problem) { document = try BoundedYAML.load(path: path, what: "--config \(path)") } catch {
            throw Problem(description: error.description)
        }
        return try interpret(document, path: path)
    }

    static func parse(_ text: String, path: String) throws(Problem) -> ConfigFile {
        let document: Any?
        do throws(BoundedYAML.Problem) { document = try BoundedYAML.parse(text, what: "--config \(path)") } catch {
            throw Problem(description: error.description)
        }
        return try interpret(document, path: path)
    }

    private static func interpret(_ document: Any?, path: String) throws(Problem) -> ConfigFile {
        guard let document else { return ConfigFile() }  // an empty file
        guard let mapping = document as? [String: Any] else {
            throw Problem(description: "--config \(path) must be a mapping of \(keys.joined(separator: ", "))")
        }
        var config = ConfigFile()
        for (key, value) in mapping.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "thresholds": config.thresholds = try strings(value, key, path)
            case "redact": config.redact = try strings(value, key, path)
            case "baseline": config.baseline = try string(value, key, path)
            case "prom": config.prom = try string(value, key, path)
            default:
                throw Problem(description: "--config \(path): unknown key '\(key)'; known keys: \(keys.joined(separator: ", "))")
            }
        }
        for expression in config.thresholds {
            do throws(ThresholdSyntaxError) { _ = try Threshold(parsing: expression) } catch {
                throw Problem(description: "--config \(path): \(error.message)")
            }
        }
        return config
    }

    private static func strings(_ value: Any, _ key: String, _ path: String) throws(Problem) -> [String] {
        if let list = value as? [Any] {
            var result: [String] = []
            for item in list { result.append(try string(item, key, path)) }
            return result
        }
        return [try string(value, key, path)]
    }

    private static func string(_ value: Any, _ key: String, _ path: String) throws(Problem) -> String {
        switch value {
        case let text as String: return text
        case let number as Int: return String(number)
        case let number as Double: return String(number)
        default: throw Problem(description: "--config \(path): '\(key)' must be text or a list of text")
        }
    }
}
