@testable import SondeRun
import Testing

/// Issue 41: `ProgressView`, what a check shows of its progress.
@Suite struct ProgressViewTests {
    @Test func progressViewFollowsTheModeAndTheStreams() {
        // auto: the terminal view on a terminal, plain lines otherwise (stderr with --json).
        #expect(ProgressView.of(.auto, json: false, quiet: false, overlapping: false, errorIsTerminal: true) == .terminal)
        #expect(ProgressView.of(.auto, json: false, quiet: false, overlapping: false, errorIsTerminal: false) == .plain(.output))
        #expect(ProgressView.of(.auto, json: true, quiet: false, overlapping: false, errorIsTerminal: false) == .plain(.error))
        #expect(ProgressView.of(.auto, json: true, quiet: false, overlapping: false, errorIsTerminal: true) == .none)
        #expect(ProgressView.of(.auto, json: false, quiet: false, overlapping: true, errorIsTerminal: true) == .none)
        #expect(ProgressView.of(.auto, json: false, quiet: false, overlapping: true, errorIsTerminal: false) == .plain(.output))
        // plain: on a terminal too; off: never; serve: never.
        #expect(ProgressView.of(.plain, json: false, quiet: false, overlapping: false, errorIsTerminal: true) == .plain(.output))
        #expect(ProgressView.of(.off, json: false, quiet: false, overlapping: false, errorIsTerminal: false) == .none)
        #expect(ProgressView.of(.plain, json: false, quiet: true, overlapping: false, errorIsTerminal: false) == .none)
    }
}
