import Foundation
import SondeCLI
@testable import SondeSuite
import Testing

/// The suite schema (Reports/schema/sonde-suite.schema.json) against the loader's keys and types,
/// and the example suites against both the loader and the schema (scripts/validate-suite.py).
@Suite struct SuiteLoaderSchemaTests {
    static let root = SuiteText.packageRoot
    static let examples = ["mobile-api-smoke.yaml", "cdn-resume.yaml", "socket-soak.yaml", "mobile-links.yaml"].map { root + "/examples/suites/" + $0 }

    static func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/Reports/schema/sonde-suite.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The per-kind branches of `checks.items.oneOf`, by their `kind` const.
    static func kindSchemas() throws -> [String: [String: Any]] {
        let schema = try schema()
        let properties = try #require(schema["properties"] as? [String: Any])
        let checks = try #require(properties["checks"] as? [String: Any])
        let branches = try #require((checks["items"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        var byKind: [String: [String: Any]] = [:]
        for branch in branches {
            let kind = try #require(((branch["properties"] as? [String: Any])?["kind"] as? [String: Any])?["const"] as? String)
            byKind[kind] = branch
        }
        return byKind
    }

    /// The kinds' branches and the `defaults` properties are what the key tables derive
    /// (`SuiteSchema`): a key added to a spec and not to the file fails here;
    /// scripts/update-report-schema.sh writes them into the file.
    @Test func theSchemaHoldsTheKeyTables() throws {
        var derived: [String: Any] = ["defaults": SuiteSchema.defaultsProperties(.sonde), "defaultsOrder": CheckKinds.sonde.defaultsKeys,
                                      "kinds": CheckKinds.sonde.names]
        for kind in CheckKinds.sonde.all {
            derived[kind.name] = SuiteSchema.branch(kind, in: .sonde)
            derived[kind.name + "Order"] = ["name", "kind"] + CheckKinds.sonde.keys(of: kind)
        }
        if let path = ProcessInfo.processInfo.environment["SONDE_DERIVED_SUITE_SCHEMA_OUT"] {
            try JSONSerialization.data(withJSONObject: derived, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        }
        let kinds = try Self.kindSchemas()
        for kind in CheckKinds.sonde.all {
            let held = try #require(kinds[kind.name]) as NSDictionary
            #expect(held == SuiteSchema.branch(kind, in: .sonde) as NSDictionary, "the \(kind) branch differs from its keys; run scripts/update-report-schema.sh")
        }
        let properties = try #require(try Self.schema()["properties"] as? [String: Any])
        let defaults = try #require((properties["defaults"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(defaults as NSDictionary == SuiteSchema.defaultsProperties(.sonde) as NSDictionary, "defaults differ from the keys; run scripts/update-report-schema.sh")
    }

    /// A key two kinds share has one type (`CheckKinds.sonde.valueTypes` keeps one per name).
    @Test func aSharedKeyHasOneType() {
        var types: [String: SuiteValueType] = [:]
        for key in CheckKinds.sonde.all.flatMap({ CheckKinds.sonde.keyTable(of: $0) }) {
            #expect(types[key.name].map { $0 == key.type } ?? true, "\(key.name)")
            types[key.name] = key.type
        }
    }

    @Test func schemaKeysEqualTheSpecsKeys() throws {
        let kinds = try Self.kindSchemas()
        #expect(Set(kinds.keys) == Set(CheckKinds.sonde.names))
        for kind in CheckKinds.sonde.all {
            let branch = try #require(kinds[kind.name])
            let names = Set((branch["properties"] as? [String: Any] ?? [:]).keys)
            let keys = CheckKinds.sonde.keys(of: kind)
            #expect(names == Set(keys + ["name", "kind"]), "\(kind): \(names.symmetricDifference(keys + ["name", "kind"]))")
            #expect(branch["additionalProperties"] as? Bool == false)
            let required = branch["required"] as? [String] ?? []
            #expect(Set(required) == Set(["name", "kind"] + kind.requiredKeys))
            // Every required key is one the branch has (an audit's `urls`, not `url`).
            #expect(Set(required).isSubset(of: names), "\(kind.name): requires \(required), has \(names.sorted())")
        }
        let properties = try #require(try Self.schema()["properties"] as? [String: Any])
        let defaults = try #require((properties["defaults"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(Set(defaults.keys) == Set(CheckKinds.sonde.defaultsKeys))
        #expect(Set(properties.keys) == Set(SuiteReader.topKeys))
    }

    @Test func everyKeyHasOneTypeAndTheSchemaSaysIt() throws {
        #expect(Set(CheckKinds.sonde.valueTypes.keys) == Set(CheckKinds.sonde.defaultsKeys))
        let references: [SuiteValueType: String] = [.duration: "#/$defs/duration", .size: "#/$defs/size", .boolean: "#/$defs/flag"]
        for (kind, branch) in try Self.kindSchemas() {
            let properties = try #require(branch["properties"] as? [String: Any])
            for (key, value) in properties where key != "name" && key != "kind" {
                let property = try #require(value as? [String: Any])
                let type = try #require(CheckKinds.sonde.valueTypes[key], "\(key)")
                if let reference = references[type] { #expect(property["$ref"] as? String == reference, "\(kind).\(key)") }
                if type == .textList {
                    #expect(property["$ref"] as? String == "#/$defs/textList" || property["type"] as? String == "array", "\(kind).\(key)")
                }
                if type == .integer || type == .unsigned || type == .number {
                    let anyOf = property["anyOf"] as? [[String: Any]] ?? []
                    #expect(anyOf.contains { $0["type"] as? String == (type == .number ? "number" : "integer") }, "\(kind).\(key)")
                }
            }
        }
    }

    /// The environment the examples name, with a readable CA file.
    static func exampleEnvironment() -> [String: String] {
        let ca = SuiteText.write("ca", to: SuiteText.temporaryDirectory() + "/target-ca.pem")
        return ["SONDE_TARGET_HTTP": "http://127.0.0.1:40001", "SONDE_TARGET_HTTPS": "https://127.0.0.1:40002",
                "SONDE_TARGET_WS": "ws://127.0.0.1:40003", "SONDE_TARGET_WSS": "wss://127.0.0.1:40004", "SONDE_TARGET_CA": ca,
                "SONDE_H3_TCP": "https://127.0.0.1:40005", "SONDE_H3_QUIC": "https://127.0.0.1:40006", "SONDE_H3_CA": ca]
    }

    @Test func examplesLoad() throws {
        let environment = Self.exampleEnvironment()
        for path in Self.examples {
            do throws(SuiteLoader.Failure) {
                let loaded = try SuiteLoader.load(path: path, kinds: .sonde, environment: environment)
                #expect(!loaded.suite.checks.isEmpty)
                #expect(!loaded.suiteYAML().contains(environment["SONDE_TARGET_CA"] ?? "?"), "a printed suite keeps ${SONDE_TARGET_CA}")
            } catch {
                Issue.record("\(path): \(error)")
            }
            // Without the variables, each says which are missing.
            do throws(SuiteLoader.Failure) {
                _ = try SuiteLoader.load(path: path, kinds: .sonde, environment: [:])
                Issue.record("\(path) loaded without its variables")
            } catch {
                #expect(error.problems.allSatisfy { $0.message.contains("is not set in the environment") }, "\(error)")
            }
        }
    }

    // MARK: scripts/validate-suite.py

    static let pythonReady: Bool = (try? python(["-c", "import yaml, jsonschema"]).status) == 0

    /// Runs python3 with `arguments`; its exit status and standard error.
    static func python(_ arguments: [String], input: String? = nil) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    static func validate(_ paths: [String]) throws -> (status: Int32, stderr: String) {
        try python([root + "/scripts/validate-suite.py"] + paths)
    }

    @Test(.enabled(if: pythonReady, "needs python3 with the yaml (PyYAML) and jsonschema modules: pip install pyyaml jsonschema"))
    func examplesAreValidUnderTheSchema() throws {
        let result = try Self.validate(Self.examples)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(.enabled(if: pythonReady, "needs python3 with the yaml (PyYAML) and jsonschema modules: pip install pyyaml jsonschema"))
    func printedSuitesAreValidUnderTheSchema() throws {
        let suite = try SuiteLoaderRoundTripTests.manyKeySuite()
        let folder = SuiteText.temporaryDirectory()
        var paths = [SuiteText.write(SuiteLoader.suiteYAML(suite), to: folder + "/suite.yaml")]
        for (index, check) in suite.checks.enumerated() {
            paths.append(SuiteText.write("checks:\n" + SuiteLoader.entryYAML(name: check.name, spec: check.spec), to: folder + "/entry\(index).yaml"))
        }
        let result = try Self.validate(paths)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(.enabled(if: pythonReady, "needs python3 with the yaml (PyYAML) and jsonschema modules: pip install pyyaml jsonschema"))
    func theSchemaRefusesWhatTheLoaderRefuses() throws {
        let folder = SuiteText.temporaryDirectory()
        let cases = [
            "checks:\n  - {name: a, kind: probe, urls: [\"http://x/\"], duraton: 5s}\n": "Additional properties are not allowed ('duraton'",
            "checks:\n  - {name: a, kind: probe, urls: [\"http://x/\"], count: 5x}\n": "count",
            "checks:\n  - {name: a, kind: soak, url: \"ws://x/\", duration: 10 parsecs}\n": "duration",
            "checks:\n  - {name: a, kind: ping, url: \"ws://x/\"}\n": "kind: 'ping' is not one of probe, soak, resume",
            "checks:\n  - {name: A!, kind: probe, urls: [\"http://x/\"]}\n": "name",
            "checks: []\n": "should be non-empty",
            "parallel: 17\nchecks:\n  - {name: a, kind: probe, urls: [\"http://x/\"]}\n": "parallel",
            "defaults: {colour: red}\nchecks:\n  - {name: a, kind: probe, urls: [\"http://x/\"]}\n": "colour",
        ]
        for (index, (text, words)) in cases.enumerated() {
            #expect(!SuiteText.problems(text).isEmpty, "the loader refuses \(text)")
            let result = try Self.validate([SuiteText.write(text, to: folder + "/bad\(index).yaml")])
            #expect(result.status == 1 && result.stderr.contains(words), "\(text): \(result.stderr)")
        }
    }
}
