import Foundation
import Testing

/// docs/options.md is generated from the commands' own declarations and the suite schema
/// (scripts/update-option-docs.py): a help text or a SpecKey changed without regenerating it fails here.
@Suite struct OptionDocsCLITests {
    @Test func theOptionReferenceIsWhatTheCommandsDeclare() throws {
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/scripts/update-option-docs.py", "--check",
                                                      "--sonde", Harness.sonde], timeout: 60)
        #expect(result.status == 0, "\(result.stdout.prefix(4000))\(result.stderr)")
    }
}
