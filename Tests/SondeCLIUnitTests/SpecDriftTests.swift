import ArgumentParser
import Foundation
import SondeHTTP
import SondeRun
import Testing
@testable import SondeCLI

/// One spelling: a check spec's keys are its command's long options (repeatable ones in the
/// plural), so a suite file, `--print-suite` and the command line cannot drift apart.
@Suite struct SpecDriftTests {
    /// Options of the run rather than of a check: they live on `sonde run`'s command line.
    static let runLevel: Set<String> = ["json", "output-dir", "history", "no-redact", "redact", "threshold", "prom", "baseline", "config",
                                        "capture", "keylog", "print-suite", "help"]

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
                  !runLevel.contains(long) else { continue }
            keys.insert(SpecDriftTests.plural[long] ?? long)
        }
        return keys
    }

    static let plural = ["header": "headers", "subprotocol": "subprotocols"]

    @Test func probeKeysAreProbeOptions() throws {
        #expect(try Self.keys(of: ProbeCommand.self) == Set(ProbeSpec.keys))
    }

    @Test func soakKeysAreSoakOptions() throws {
        #expect(try Self.keys(of: SoakCommand.self) == Set(SoakSpec.keys))
    }

    @Test func resumeKeysAreResumeOptions() throws {
        #expect(try Self.keys(of: ResumeCommand.self) == Set(ResumeSpec.keys))
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
