import Foundation
import SondeAudit
@testable import SondeSuite
import Testing
import Yams

/// `entryYAML`/`suiteYAML` load back to equal checks, for every kind with many keys set.
@Suite struct SuiteLoaderRoundTripTests {
    /// Files the specs name (they must be readable for the specs to load).
    static let folder: String = {
        let folder = SuiteText.temporaryDirectory()
        SuiteText.write("ca", to: folder + "/ca.pem")
        SuiteText.write("body", to: folder + "/upload.bin")
        return folder
    }()

    /// Specs with most keys set, values chosen to need quoting (`404`, `null`, `: `, `#`, `$`, newlines).
    static func manyKeySuite() throws -> Suite {
        let folder = Self.folder
        let probe = try YAMLDecoder().decode(ProbeSpec.self, from: """
        urls: ["https://127.0.0.1:9/a?x=1,2", "http://127.0.0.1:9/b#frag"]
        count: 7
        parallel: 3
        http2-prior-knowledge: true
        request: PUT
        headers: ["X-A: 1", "Cookie: a=b; c=d", "X-Dollar: $HOME ${NOT} $$", "X-Quote: \\"q\\" 'r' \\\\"]
        data: "{\\"a\\": [1, 2]}\\n# not a comment\\ttab"
        timeout: 2.5s
        connect-timeout: 250ms
        insecure: true
        cacert: \(folder)/ca.pem
        pinned-pubkey: "sha256//abc="
        ipv6: true
        resolve: ["example.com:443:127.0.0.1"]
        doh-url: https://dns.example/dns-query
        proxy: "http://proxy:3128"
        no-reuse: true
        max-redirects: 0
        expect-status: "404"
        thresholds: ["wait.p95<200ms", "errors.rate<1%", "cold.total.p95<800ms"]
        """)
        let soak = try YAMLDecoder().decode(SoakSpec.self, from: """
        url: wss://127.0.0.1:9/socket?token=a&b=c
        duration: 10m
        connections: 3
        ramp: 1.5s
        ping-interval: 25s
        pong-timeout: 5s
        message-rate: 2.5
        message-size: 4KiB
        subprotocols: ["chat", "null", "1.5", "v2.json"]
        headers: ["Origin: https://app.example"]
        backoff-initial: 100ms
        backoff-max: 30s
        backoff-multiplier: 1.5
        jitter: equal
        max-attempts: 10
        stable-after: 10s
        connect-timeout: 3s
        discover-idle-timeout: false
        max-idle: 10m
        insecure: false
        cacert: \(folder)/ca.pem
        thresholds: ["ws.ping.p95<250ms", "ws.lost.count==0"]
        """)
        let download = try YAMLDecoder().decode(ResumeSpec.self, from: """
        url: https://127.0.0.1:9/big.bin
        check: false
        trials: 12
        interrupts-per-trial: 2
        interrupt-at: ["512KiB", "50%,75%"]
        kinds: abort,drop
        seed: 18446744073709551615
        keep-files: true
        retries: 4
        backoff-initial: 50ms
        backoff-max: 1s
        backoff-multiplier: 3
        jitter: none
        stall-timeout: 30s
        connect-timeout: 2s
        headers: ["Accept-Encoding: identity"]
        insecure: true
        cacert: \(folder)/ca.pem
        resolve: ["cdn.example:443:127.0.0.1"]
        """)
        let upload = try YAMLDecoder().decode(ResumeSpec.self, from: """
        url: http://127.0.0.1:9/files
        upload: \(folder)/upload.bin
        protocol: tus
        interop-version: 5
        trials: 2
        seed: 0
        """)
        return Suite(parallel: 3, checks: [
            SuiteCheck(name: "api-h2c", spec: probe),
            SuiteCheck(name: "socket_1", spec: soak),
            SuiteCheck(name: "big", spec: download),
            SuiteCheck(name: "up", spec: upload),
            SuiteCheck(name: "minimal", spec: ProbeSpec(urls: ["http://127.0.0.1:9/"])),
            SuiteCheck(name: "mobile", spec: AuditSpec(urls: ["https://127.0.0.1:9/"])),
        ])
    }

    @Test func theManyKeySpecsAreValid() throws {
        for check in try Self.manyKeySuite().checks {
            #expect(check.spec.problems().isEmpty, "\(check.name): \(check.spec.problems())")
        }
    }

    @Test func suiteYAMLLoadsBackEqual() throws {
        let suite = try Self.manyKeySuite()
        let text = SuiteLoader.suiteYAML(suite)
        let loaded = SuiteText.load(text, folder: Self.folder)
        #expect((try? loaded.get().suite) == suite, "\(text)\n\(loaded)")
        #expect(text.hasPrefix("parallel: 3\nchecks:\n  - name: api-h2c\n    kind: probe\n"), "\(text)")
        #expect(text.contains("    http2-prior-knowledge: true\n"))
        #expect(text.contains("    expect-status: \"404\"\n"))
        #expect(text.contains("    seed: 18446744073709551615\n"))
        #expect(text.contains("    message-size: 4096\n"))
        #expect(text.contains("    duration: 10m\n"))
        #expect(text.contains("    subprotocols: [chat, \"null\", \"1.5\", v2.json]\n"), "\(text)")
        #expect(text.contains("$$HOME $${NOT} $$$$"), "a literal $ is written $$: \(text)")
        #expect(SuiteLoader.suiteYAML(Suite(checks: [SuiteCheck(name: "a", spec: ProbeSpec(urls: ["http://x/"]))]))
            == "checks:\n  - name: a\n    kind: probe\n    urls: [\"http://x/\"]\n")
    }

    @Test func eachEntryLoadsBackEqualUnderChecks() throws {
        for check in try Self.manyKeySuite().checks {
            let entry = SuiteLoader.entryYAML(name: check.name, spec: check.spec)
            #expect(entry.hasPrefix("- name: \(check.name)\n  kind: \(check.spec.kind.name)\n"), "\(entry)")
            let loaded = SuiteText.load("checks:\n" + entry, folder: Self.folder)
            #expect((try? loaded.get().suite.checks) == [check], "\(entry)\n\(loaded)")
        }
    }

    @Test func entryKeysFollowTheKindsKeyOrder() throws {
        for check in try Self.manyKeySuite().checks {
            let entry = SuiteLoader.entryYAML(name: check.name, spec: check.spec)
            let keys = entry.split(separator: "\n").dropFirst(2).compactMap { line in
                line.firstRange(of: ": ").map { String(line[line.index(line.startIndex, offsetBy: 2)..<$0.lowerBound]) }
            }
            let order = check.spec.visitedKeys.map(\.name)
            let positions = keys.compactMap { order.firstIndex(of: $0) }
            #expect(positions.count == keys.count && positions == positions.sorted(), "\(check.name): \(keys)")
        }
    }

    @Test func quotingReadsBackTheSameString() throws {
        let awkward = ["", " lead", "trail ", "true", "no", "~", "null", "1e3", "0x1F", "12:30", "2024-01-01", "-dash", "? q", "a: b",
                       "a #b", "#c", "&anchor", "*alias", "!tag", "|", ">", "'", "\"", "%", "@", "`", "[x]", "{y}", "a,b", "multi\nline",
                       "tab\there", "bell\u{07}", "nbsp\u{A0}", "é ü", "emoji 🚀", "line\u{2028}sep", "back\\slash", "$"]
        for text in awkward {
            for flow in [false, true] {
                let yaml = flow ? "v: [\(SuiteYAMLWriter.scalar(text, flow: true))]" : "v: \(SuiteYAMLWriter.scalar(text, flow: false))"
                let node = try Yams.compose(yaml: yaml)
                let value = flow ? node?.mapping?["v"]?.sequence?.first?.scalar : node?.mapping?["v"]?.scalar
                #expect(value?.string == text, "\(yaml)")
                #expect(value.map { Resolver.default.resolveTag(of: .scalar($0)) } == .str, "\(yaml)")
            }
        }
    }
}
