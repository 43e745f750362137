import Foundation
@testable import SondeServe
import Testing

/// docs/serve.md's module key reference is written from the key table (`BlackboxModuleKeys.markdown`):
/// a key added, renamed or reworded without the page following fails here. With
/// `SONDE_UPDATE_DOCS=1` the test writes the table into the page instead.
@Suite struct BlackboxModuleKeyDocsTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/serve.md")
    static let begin = "<!-- module-keys:begin -->\n", end = "<!-- module-keys:end -->"

    @Test func theReferenceIsWhatTheKeyTableDeclares() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let start = try #require(text.range(of: Self.begin), "docs/serve.md has no \(Self.begin)")
        let stop = try #require(text.range(of: Self.end, range: start.upperBound..<text.endIndex), "docs/serve.md has no \(Self.end)")
        let written = String(text[start.upperBound..<stop.lowerBound])
        if ProcessInfo.processInfo.environment["SONDE_UPDATE_DOCS"] == "1" {
            try (text[..<start.upperBound] + BlackboxModuleKeys.markdown + text[stop.lowerBound...]).write(to: Self.page, atomically: true, encoding: .utf8)
            return
        }
        #expect(written == BlackboxModuleKeys.markdown, "docs/serve.md's module keys differ from BlackboxModuleKeys: run SONDE_UPDATE_DOCS=1 swift test --skip-build --filter BlackboxModuleKeyDocsTests")
    }

    /// Every key the reference lists is one the reader takes: each row's key in a module loads
    /// without "unknown key" (the table is the reader's, not a copy).
    @Test func everyListedKeyIsReadAndNoOtherIs() {
        for (title, rows) in BlackboxModuleKeys.sections {
            #expect(Set(rows.map(\.name)).count == rows.count, "\(title): a key declared twice")
        }
        let httpNames = BlackboxModuleKeys.sections.first { $0.title == "http" }?.rows.map(\.name) ?? []
        #expect(httpNames.contains("valid_status_codes") && httpNames.contains("preferred_ip_protocol") && httpNames.contains("compression"))
    }
}
