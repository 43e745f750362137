import ArgumentParser
import Foundation
import SondeAudit
import SondeHTTP
import SondeSuite
import Testing
@testable import SondeCLI

/// One spelling: a check spec's keys are its command's long options (repeatable ones in the
/// plural), so a suite file, `--print-suite` and the command line cannot drift apart.
@Suite struct SpecDriftTests {
    /// Options of the run rather than of a check: they live on `sonde run`'s command line.
    static let runLevel: Set<String> = ["json", "output-dir", "history", "no-redact", "redact", "threshold", "prom", "baseline", "baseline-any", "run-dir", "config",
                                        "capture", "keylog", "print-suite", "otlp", "traceparent", "progress", "summary-md", "help"]
    /// Options that are part of another key's values: probe's `--name NAME URL` is a `urls` entry's `name`.
    static let partOfAnotherKey: Set<String> = ["name"]

    /// The spec keys a command's options stand for, read from swift-argument-parser's own dump.
    static func keys(of command: ParsableCommand.Type) throws -> Set<String> {
        let dump = try JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any]
        let arguments = (dump?["command"] as? [String: Any])?["arguments"] as? [[String: Any]] ?? []
        var keys: Set<String> = ["thresholds"]
        for argument in arguments {
            if argument["kind"] as? String == "positional" {
                keys.insert(argument["valueName"] as? String ?? "?")
                continue
            }
            let names = argument["names"] as? [[String: Any]] ?? []
            guard let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                  !runLevel.contains(long), !partOfAnotherKey.contains(long) else { continue }
            keys.insert(SpecDriftTests.plural[long] ?? long)
        }
        return keys
    }

    static let plural = ["header": "headers", "subprotocol": "subprotocols"]

    @Test func probeKeysAreProbeOptions() throws {
        #expect(try Self.keys(of: ProbeCommand.self) == Set(CheckKinds.sonde.keys(of: ProbeKind.self)))
    }

    @Test func soakKeysAreSoakOptions() throws {
        #expect(try Self.keys(of: SoakCommand.self) == Set(CheckKinds.sonde.keys(of: SoakKind.self)))
    }

    @Test func resumeKeysAreResumeOptions() throws {
        #expect(try Self.keys(of: ResumeCommand.self) == Set(CheckKinds.sonde.keys(of: ResumeKind.self)))
    }

    @Test func auditKeysAreAuditOptions() throws {
        #expect(try Self.keys(of: AuditCommand.self) == Set(CheckKinds.sonde.keys(of: AuditKind.self)))
    }

    /// A value of `key` that passes its checks, as the command line writes it and as a suite
    /// file's JSON form holds it (files named by path keys exist in `folder`).
    static func sample(_ key: SpecKey, folder: String) -> (argument: String?, json: Any) {
        if key.type == .boolean { return (nil, true) }
        let text: String
        switch key.name {
        case "upload", "data-file", "cacert": text = folder + "/file"
        case "alt-svc": text = folder + "/alt-svc.txt"
        case "pinned-pubkey": text = "sha256//AAAA"
        case "doh-url": text = "https://dns.example/dns-query"
        case "proxy": text = "http://127.0.0.1:3128"
        case "expect-status": text = "200-299,404"
        case "request": text = "PUT"
        case "resolve": text = "h:443:127.0.0.1"
        case "headers": text = "A: b"
        case "kinds": text = "drop"
        case "interrupt-at": text = "50%"
        case "subprotocols": text = "chat"
        case "link": text = "lte,loss-down=1%"
        case "only", "skip": text = "hsts"
        case "clients": text = "ios>=15,android>=13"
        case "graphql-query": text = "query A { a }"
        case "graphql-subscription": text = "subscription A { a }"
        case "graphql-variables": text = #"{"a": 1}"#
        case "graphql-operation": text = "A"
        default: text = key.choices.last ?? "x"
        }
        switch key.type {
        case .integer, .unsigned:
            var value = 7
            switch key.bound {
            case .integer(let range)?: value = range.lowerBound + 1
            case .atLeast(let minimum)?: value = minimum + 1
            default: break
            }
            return (String(value), value)
        case .number: return ("2.5", 2.5)
        case .duration: return ("2s", "2s")
        case .size: return ("64", 64)
        case .textList: return (text, [text])
        case .text, .boolean: return (text, text)
        }
    }

    /// Every key of every kind, given alone on the command line and alone in a suite's check,
    /// makes the same spec: the option sets the key of its name, with the same value.
    @Test func everyOptionSetsItsKeyAsTheSuiteDoes() throws {
        let folder = NSTemporaryDirectory() + "sonde-drift-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        FileManager.default.createFile(atPath: folder + "/file", contents: Data("x".utf8))
        func check<Spec: CheckSpec>(_ spec: Spec.Type, url: String, urlKey: String, parse: ([String]) throws -> Spec) throws {
            for key in CheckKinds.sonde.keyTable(of: Spec.Kind.self) where key.name != urlKey && key.name != "thresholds" {
                let (argument, json) = Self.sample(key, folder: folder)
                let option = "--" + (SpecProblem.optionName(forKey: key.name) ?? key.name)
                // A GraphQL operation's variables and name go with its document (a probe's query, a soak's subscription).
                let isSoak = Spec.Kind.name == SoakKind.name
                let documentKey = isSoak ? "graphql-subscription" : "graphql-query"
                let companion: String? = key.name.hasPrefix("graphql-") && key.name != documentKey ? (isSoak ? "subscription A { a }" : "query A { a }") : nil
                let fromCommand = try parse([url, option] + (argument.map { [$0] } ?? []) + (companion.map { ["--" + documentKey, $0] } ?? []))
                var document: [String: Any] = [urlKey: urlKey == "urls" ? [url] as Any : url, key.name: json]
                if let companion { document[documentKey] = companion }
                let decoder = JSONDecoder()
                decoder.userInfo = CheckKinds.sonde.decodingUserInfo
                let fromSuite = try decoder.decode(Spec.self, from: try JSONSerialization.data(withJSONObject: document))
                #expect(fromCommand == fromSuite, "\(Spec.Kind.name) \(key.name): the option made \(fromCommand), the suite key \(fromSuite)")
                #expect(fromCommand != (try parse([url] + (companion.map { ["--" + documentKey, $0] } ?? []))), "\(Spec.Kind.name) \(option) changed nothing")
            }
        }
        try check(ProbeSpec.self, url: "https://h/", urlKey: "urls") { try ProbeCommand.parse($0).spec }
        try check(SoakSpec.self, url: "wss://h/", urlKey: "url") { try SoakCommand.parse($0).spec }
        try check(ResumeSpec.self, url: "https://h/", urlKey: "url") { try ResumeCommand.parse($0).spec }
        try check(AuditSpec.self, url: "https://h/", urlKey: "urls") { try AuditCommand.parse($0).spec }
    }

    /// The repeatable options' keys are the plurals `SpecProblem.optionName` maps back.
    @Test func pluralKeysMapBackToTheirOptions() {
        for (option, key) in Self.plural { #expect(SpecProblem.optionName(forKey: key) == option) }
        #expect(SpecProblem.optionName(forKey: "thresholds") == "threshold")
    }

    /// A command line's spec, encoded and decoded, is the same spec (what `--print-suite` relies on).
    @Test(arguments: [
        ["https://h/a", "https://h/b", "--count", "3", "--parallel", "2", "--http2", "-H", "A: b", "--timeout", "5s",
         "--connect-timeout", "250ms", "-k", "--resolve", "h:443:127.0.0.1", "-6", "--no-reuse", "--max-redirects", "0",
         "--expect-status", "200-299,404", "-X", "PUT", "-d", "x"],
        ["http://h/", "--http3-only"], ["http://h/", "--http1.1", "-4"],
    ])
    func probeSpecsSurviveCoding(arguments: [String]) throws {
        let spec = try ProbeCommand.parse(arguments).spec
        let decoded = try JSONDecoder().decode(ProbeSpec.self, from: try JSONEncoder().encode(spec))
        #expect(decoded == spec)
    }

    @Test func oneVersionFlagAtMost() throws {
        #expect(throws: (any Error).self) { try ProbeCommand.parse(["http://h/", "--http2", "--http1.1"]) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ProbeSpec.self, from: Data(#"{"urls":["http://h/"],"http2":true,"http3":true}"#.utf8)) }
        #expect(try ProbeCommand.parse(["http://h/", "--http2-prior-knowledge"]).spec.httpVersion == .http2PriorKnowledge)
    }

    /// Every duration option of every command takes the one parser's units.
    @Test func everyDurationOptionTakesUnits() throws {
        _ = try ProbeCommand.parse(["http://h/", "--timeout", "5s", "--connect-timeout", "5s"])
        _ = try SoakCommand.parse(["ws://h/", "--duration", "5s", "--ramp", "5s", "--ping-interval", "5s", "--pong-timeout", "5s",
                                   "--backoff-initial", "5s", "--backoff-max", "5s", "--stable-after", "5s", "--connect-timeout", "5s",
                                   "--max-idle", "5s"])
        _ = try ResumeCommand.parse(["http://h/", "--backoff-initial", "5s", "--backoff-max", "5s", "--stall-timeout", "5s",
                                     "--connect-timeout", "5s"])
    }
}
