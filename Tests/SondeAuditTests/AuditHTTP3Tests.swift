import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// `h3.advertised` and `h3.works` against hypercorn on aioquic (scripts/h3-fixture.sh: h2 on a TCP
/// port advertising `h3=":QUIC"; ma=3600`): the audit follows the Alt-Svc as URLSession does, and
/// the second request goes over QUIC; hypercorn's access log shows the HTTP/3 request.
@Suite(.serialized, .enabled(if: AuditOptions.canTryHTTP3 && Hypercorn.available,
                             "needs a libcurl with HTTP/3 (scripts/provide-libcurl.sh) and hypercorn with aioquic (make deps-test)"))
struct AuditHTTP3Tests {
    @Test func anAdvertisedH3AlternativeThatAnswersPasses() throws {
        let directory = NSTemporaryDirectory() + "sonde-audit-h3-\(UUID().uuidString)"
        var ports: [Int] = []
        for _ in 0..<50 where ports.count < 2 {
            let port = Int.random(in: 20_000...60_000)
            if AuditCorpus.portIsFree(port) && !ports.contains(port) { ports.append(port) }
        }
        try #require(ports.count == 2)
        let started = AuditCorpus.run("/bin/bash", [AuditCorpus.root + "/scripts/h3-fixture.sh", directory, "\(ports[0])", "\(ports[1])"], timeout: 60)
        defer {
            if let text = try? String(contentsOfFile: directory + "/hypercorn.pid", encoding: .utf8),
               let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, SIGTERM)
            }
        }
        try #require(started.status == 0, "hypercorn did not start: \(started.output)")
        let target = Auditor(options: AuditOptions(caFile: directory + "/ca.pem", only: ["h3.advertised", "h3.works", "http.h2"]))
            .audit("https://127.0.0.1:\(ports[0])/1k.bin")
        let lines = target.findings.map { "\($0.severity.rawValue) \($0.id): \($0.observed)" }
        print(lines.joined(separator: "\n"))
        #expect(target.findings.first { $0.id == "h3.advertised" }?.severity == .pass, "\(lines)")
        let works = try #require(target.findings.first { $0.id == "h3.works" })
        #expect(works.severity == .pass, "\(lines)")
        #expect(works.observed.contains("127.0.0.1:\(ports[1])") && works.observed.contains("QUIC handshake"), "\(works.observed)")
        let log = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        #expect(log.split(separator: "\n").contains { $0.hasSuffix("GET /1k.bin 3 200") }, "no HTTP/3 request in hypercorn's log: \(log)")
    }
}

/// Whether hypercorn and aioquic can be imported (make deps-test installs them).
enum Hypercorn {
    static let available = AuditCorpus.run("/usr/bin/env", ["python3", "-c", "import hypercorn, aioquic"], timeout: 30).status == 0
}
