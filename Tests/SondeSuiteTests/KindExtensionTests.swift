import Foundation
import SondeCore
import SondeHTTP
import SondeReport
// Not @testable: an extension in another module sees SondeSuite's public interface only, as this file does.
import SondeSuite
import Testing

/// A kind extension declared outside SondeSuite (`KindExtension`) and registered in a `CheckKinds`
/// of its own: the probe's suites, schema and `--print-suite` take its key, its rules join the
/// probe's, and it changes the probe's engine options. What SondeGraphQL's extensions do.
@Suite struct KindExtensionTests {
    /// `tag: TEXT` on a probe: sent as `X-Tag`, not with `data` (a tagged probe is a GET).
    struct TagExtension: KindExtension {
        typealias Base = ProbeSpec
        static let name = "tag"
        static let tagKey = SpecKey("tag", .text, summary: "A tag sent as X-Tag", help: "A tag sent as X-Tag.")
        var tag: String?

        static var unfilled: TagExtension { TagExtension() }
        mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) { v.visit(Self.tagKey, &tag) }
        func problems(in spec: ProbeSpec) -> [SpecProblem] {
            guard let tag else { return [] }
            var problems: [SpecProblem] = []
            if tag.isEmpty { problems.append(SpecProblem(key: "tag", "must not be empty")) }
            if spec.data != nil { problems.append(SpecProblem(key: "tag", "does not go with data")) }
            return problems
        }
        func apply(to options: inout ProbeOptions, of spec: ProbeSpec, redactor: Redactor) throws(SpecProblem) {
            guard let tag else { return }
            options.headers.append(HeaderField(name: "X-Tag", value: tag))
        }
        static var metrics: [DeclaredMetric] { [.value("tag.count")] }
    }

    static let kinds = CheckKinds([ProbeKind.self], extensions: [TagExtension.self])
    static let plain = CheckKinds([ProbeKind.self])

    static func parse(_ text: String, kinds: CheckKinds = kinds) -> Result<SuiteLoader.Loaded, SuiteLoader.Failure> {
        Result { () throws(SuiteLoader.Failure) in try SuiteLoader.parse(text, file: "suite.yaml", folder: "/", kinds: kinds, environment: [:]) }
    }

    @Test func aSuiteReadsPrintsAndRunsTheExtensionsKey() throws {
        let loaded = try Self.parse("""
        defaults: {tag: blue}
        checks:
          - {name: a, kind: probe, urls: ["http://127.0.0.1:9/"], count: 2}
          - {name: b, kind: probe, urls: ["http://127.0.0.1:9/"], tag: red, thresholds: ["errors.rate<1%"]}
        """).get()
        let specs = try loaded.suite.checks.map { try #require($0.spec as? ProbeSpec) }
        #expect(specs.map { $0.extensions[TagExtension.self].tag } == ["blue", "red"])
        // The key is visited where the probe says (after client, before link and thresholds), printed there, and read back the same.
        #expect(SuiteLoader.entryYAML(name: "b", spec: specs[1])
            == "- name: b\n  kind: probe\n  urls: [\"http://127.0.0.1:9/\"]\n  tag: red\n  thresholds: [errors.rate<1%]\n")
        #expect(try Self.parse(SuiteLoader.suiteYAML(loaded.suite)).get().suite == loaded.suite)
        // Its engine change: the header, only with the key.
        #expect(try specs[1].makeOptions(redactor: Redactor()).headers.contains(HeaderField(name: "X-Tag", value: "red")))
        #expect(try !ProbeSpec(urls: ["http://h/"]).makeOptions(redactor: Redactor()).headers.contains { $0.name == "X-Tag" })
    }

    @Test func theRegistryListsTheExtensionsKeyWithItsKind() {
        #expect(Self.kinds.keys(of: ProbeKind.self).contains("tag") && !Self.plain.keys(of: ProbeKind.self).contains("tag"))
        #expect(!ProbeKind.keys.contains("tag"))
        #expect(Self.kinds.defaultsKeys.contains("tag") && Self.kinds.valueTypes["tag"] == .text)
        let properties = SuiteSchema.branch(ProbeKind.self, in: Self.kinds)["properties"] as? [String: Any] ?? [:]
        #expect((properties["tag"] as? [String: Any])?["description"] as? String == "A tag sent as X-Tag")
        guard case .listed(let declared) = Self.kinds.declaredMetrics else { Issue.record("not listed"); return }
        #expect(declared == [.value("tag.count")])
    }

    @Test func aSuiteRefusesWhatTheExtensionRefusesOrDoesNotKnow() {
        let cases: [(String, CheckKinds, String)] = [
            ("checks:\n  - {name: a, kind: probe, urls: [\"http://h/\"], tag: \"\"}\n", Self.kinds, "tag: must not be empty"),
            ("checks:\n  - {name: a, kind: probe, urls: [\"http://h/\"], tag: x, data: y}\n", Self.kinds, "tag: does not go with data"),
            ("checks:\n  - {name: a, kind: probe, urls: [\"http://h/\"], tag: [x]}\n", Self.kinds, "tag: expected text"),
            ("checks:\n  - {name: a, kind: probe, urls: [\"http://h/\"], tag: x}\n", Self.plain, "unknown key for a probe check"),
        ]
        for (text, kinds, words) in cases {
            guard case .failure(let failure) = Self.parse(text, kinds: kinds) else { Issue.record("accepted: \(text)"); continue }
            #expect(failure.description.contains(words), "\(failure)")
        }
    }

    /// A spec made in code (carrying only the extensions it set) equals the same check decoded
    /// with the registry (carrying every registered one, unfilled); a value given makes them differ.
    @Test func specsCompareByTheExtensionsGiven() throws {
        let decoder = JSONDecoder()
        decoder.userInfo = Self.kinds.decodingUserInfo
        let decoded = try decoder.decode(ProbeSpec.self, from: Data(#"{"urls": ["http://h/"]}"#.utf8))
        var made = ProbeSpec(urls: ["http://h/"])
        #expect(made == decoded)
        made.extensions[TagExtension.self] = TagExtension(tag: "x")
        #expect(made != decoded)
        let tagged = try decoder.decode(ProbeSpec.self, from: Data(#"{"urls": ["http://h/"], "tag": "x"}"#.utf8))
        #expect(made == tagged)
        // Without the registry's user info the key is not the probe's: not read.
        let bare = try JSONDecoder().decode(ProbeSpec.self, from: Data(#"{"urls": ["http://h/"], "tag": "x"}"#.utf8))
        #expect(bare.extensions[TagExtension.self].tag == nil)
    }
}
