import ArgumentParser
import SondeCore
import Testing
@testable import SondeCLI

/// The commands' parsing, reached directly now that the CLI is a library: one duration parser
/// behind every option, the bounds said in words.
@Suite struct OptionParsingTests {
    @Test func probeTimeoutsGoThroughTheOneParser() throws {
        let defaults = try ProbeCommand.parse(["https://h/"]).makeOptions()
        #expect(defaults.timeoutMs == 30_000 && defaults.connectTimeoutMs == nil)
        let units = try ProbeCommand.parse(["--timeout", "500ms", "--connect-timeout", "2m", "https://h/"]).makeOptions()
        #expect(units.timeoutMs == 500 && units.connectTimeoutMs == 120_000)
        #expect(try ProbeCommand.parse(["-m", "5", "https://h/"]).makeOptions().timeoutMs == 5_000)
        #expect(try ProbeCommand.parse(["--timeout", "0", "https://h/"]).makeOptions().timeoutMs == nil)
    }

    @Test(arguments: [["--timeout", "5x"], ["--timeout", "-1s"], ["--timeout", "25h"], ["--connect-timeout", "0s"]])
    func badDurationsAreUsageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try ProbeCommand.parse(arguments + ["https://h/"]) }
    }

    @Test func aBoundIsSaidInWords() {
        do {
            _ = try ProbeCommand.parse(["--timeout", "25h", "https://h/"])
            Issue.record("25h was accepted")
        } catch {
            #expect(ProbeCommand.message(for: error).contains("--timeout must be at most 24h (got 25h)"), "\(ProbeCommand.message(for: error))")
        }
    }

    /// A bare `--capture` in option position is `--capture=required`; nothing else is touched:
    /// not `--capture=optional`, not a value holding the word, not anything after `--`.
    @Test func onlyABareCaptureInOptionPositionIsRewritten() {
        #expect(Sonde.bareCaptureExpanded(["probe", "--capture", "https://h/"]) == ["probe", "--capture=required", "https://h/"])
        #expect(Sonde.bareCaptureExpanded(["probe", "https://h/", "--capture=optional", "-H", "X: --capture"])
                == ["probe", "https://h/", "--capture=optional", "-H", "X: --capture"])
        #expect(Sonde.bareCaptureExpanded(["analyze", "--capture", "--", "--capture", "a.pcap"])
                == ["analyze", "--capture=required", "--", "--capture", "a.pcap"])
        #expect(Sonde.bareCaptureExpanded(["analyze", "--", "--capture"]) == ["analyze", "--", "--capture"])
    }

    @Test func soakSizesAndDurationsGoThroughTheOneParser() throws {
        let soak = try SoakCommand.parse(["ws://h/", "--message-size", "1KiB", "--ping-interval", "250ms", "--duration", "2m"])
        #expect(soak.messageSize?.bytes == 1024 && soak.pingInterval?.seconds == 0.25 && soak.duration?.seconds == 120)
        #expect(throws: (any Error).self) { try SoakCommand.parse(["ws://h/", "--message-size", "1 parsec"]) }
    }

    /// One `--capture` option for every command (issue 28 #3): demo captures optionally unless
    /// told off, the others only when asked; `off` and a bad value mean the same everywhere.
    @Test func captureIsOneOptionEverywhere() throws {
        #expect(try DemoCommand.parse([]).capture.mode(byDefault: .optional) == .optional)
        #expect(try DemoCommand.parse(["--capture=off"]).capture.mode(byDefault: .optional) == nil)
        #expect(try DemoCommand.parse(["--capture=required"]).capture.mode(byDefault: .optional) == .required)
        #expect(try ProbeCommand.parse(["https://h/"]).capture.mode == nil)
        #expect(try ProbeCommand.parse(["--capture=off", "https://h/"]).capture.mode == nil)
        #expect(try ProbeCommand.parse(["--capture=optional", "https://h/"]).capture.mode == .optional)
        #expect(throws: (any Error).self) { try DemoCommand.parse(["--capture=bogus"]) }
        #expect(throws: (any Error).self) { try ProbeCommand.parse(["--capture=bogus", "https://h/"]) }
    }
}
