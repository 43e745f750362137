import SondeCore
import Testing
@testable import SondeAudit

/// The terminal view passes no control character a server sent (an escape sequence in a header).
@Suite struct AuditTerminalViewTests {
    @Test func controlCharactersDoNotReachTheTerminal() {
        var target = AuditTarget(url: "https://a.example/", host: "a.example", port: 443)
        target.findings = [AuditFinding(id: "hsts", severity: .warn, title: "t", observed: "max-age \u{1B}[2J\u{7}evil", client: "c\u{1B}]0;x")]
        let text = AuditTerminalView.render(AuditResult(failOn: .fail, target: target))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(text.debugDescription)")
        #expect(text.contains("WARN hsts: max-age"))
    }
}
