import ArgumentParser
import Foundation
import SondeAudit
import SondeCore
import SondeHTTP

/// `sonde audit URL…`: what each server offers over TLS and how Apple's published rules (App
/// Transport Security, the iOS 13 certificate requirements, the 398-day limit, the CT policy) judge
/// it, and how its HTTP serves a URLSession or OkHttp client (compression, caching, keep-alive,
/// HTTP/2 and HTTP/3, redirects, secrets in URLs); findings in the terminal and, with `--json`, as an `AuditReport` on stdout (or `--output`).
/// Exit 0 without a `fail` (or, with `--fail-on warn`, without a `warn`), 1 otherwise, 64 on usage
/// errors. HTML, JUnit and run folders are not written yet (docs/audit.md).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check an API for mobile clients: TLS and certificate against Apple's ATS rules, and HTTP as URLSession and OkHttp meet it.",
        discussion: """
        Each protocol version and cipher suite is tried alone, as testssl.sh and nscurl --ats-diagnostics do; the leaf \
        certificate and the served chain are checked. The URL is fetched as URLSession fetches it (Accept-Encoding: gzip, \
        deflate, br; redirects followed), twice, then revalidated, and its Alt-Svc h3 alternative tried: compression, \
        caching, keep-alive, HTTP/2, HTTP/3, redirects, secrets in URLs, HSTS. An http URL is checked for its redirect to \
        https, and the https URL it leads to is audited. Finding ids: \
        \(AuditOptions.findingIDs.joined(separator: ", ")). See docs/audit.md for the rules and their sources.
        """)

    @Argument(help: "http or https URLs to audit.")
    var urls: [String] = []

    @Option(name: .long, help: "Verify the chain against this CA file (PEM) instead of the default trust store.")
    var cacert: String?

    @Flag(name: .long, help: "Print the report as JSON on stdout instead of the terminal view.")
    var json = false

    @Option(name: .long, help: "Also write the JSON report to this file.")
    var output: String?

    @Option(name: .long, help: "Keep only these finding ids (comma-separated).")
    var only: String?

    @Option(name: .long, help: "Leave out these finding ids (comma-separated).")
    var skip: String?

    @Option(name: .customLong("fail-on"), help: "The severity that fails the audit: fail (default) or warn.")
    var failOn: String = "fail"

    @Option(name: .customLong("connect-timeout"), help: "TCP connect bound of each handshake, ms (1…60000).")
    var connectTimeoutMs = 2_000

    @Option(name: .customLong("budget"), help: "Time budget of one host's TLS scan, and of its HTTP probes, ms (100…600000).")
    var budgetMs = 8_000

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one http or https URL") }
        guard ["fail", "warn"].contains(failOn) else { throw ValidationError("--fail-on takes fail or warn, not \(failOn)") }
        guard (1...60_000).contains(connectTimeoutMs) else { throw ValidationError("--connect-timeout must be 1…60000 ms") }
        guard (100...600_000).contains(budgetMs) else { throw ValidationError("--budget must be 100…600000 ms") }
        let known = Set(AuditOptions.findingIDs)
        for (name, list) in [("--only", only), ("--skip", skip)] {
            for id in Self.ids(list) ?? [] where !known.contains(id) {
                throw ValidationError("\(name): no finding \(id) (known: \(AuditOptions.findingIDs.joined(separator: ", ")))")
            }
        }
        if let cacert, !FileManager.default.isReadableFile(atPath: cacert) {
            throw ValidationError("--cacert \(cacert): no readable file")
        }
        for url in urls {
            do { _ = try Auditor.parse(url) } catch { throw ValidationError(error.description) }
        }
    }

    static func ids(_ list: String?) -> Set<String>? {
        list.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }) }
    }

    func run() async throws {
        let options = AuditOptions(caFile: cacert, connectTimeoutMs: connectTimeoutMs, budgetMs: budgetMs, only: Self.ids(only),
                                   skip: Self.ids(skip) ?? [])
        let urls = self.urls
        let startedAt = Timestamp.now()
        let started = monotonicMicroseconds()
        let targets = await runOnDedicatedThread(named: "sonde-audit") { urls.map { Auditor(options: options).audit($0) } }
        let report = AuditReport(libcurl: CurlLibrary.version, tlsLibrary: CurlLibrary.sslVersion, startedAt: startedAt,
                                 durationMs: Double(monotonicMicroseconds() - started) / 1000, targets: targets)
        var output = JSONOutput()
        report.writeJSON(to: &output)
        let text = String(decoding: output.bytes, as: UTF8.self)
        if let path = self.output {
            do { try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8) } catch {
                FileHandle.standardError.write(Data("sonde audit: cannot write \(path): \(error)\n".utf8))
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        print(json ? text : AuditTerminalView.render(report))
        let threshold: AuditFinding.Severity = failOn == "warn" ? .warn : .fail
        let failed = targets.contains { $0.error != nil || $0.findings.contains { $0.severity >= threshold } }
        throw ExitCode(failed ? ExitStatus.failure.rawValue : ExitStatus.success.rawValue)
    }
}

/// The terminal view of an audit: per target, the offered versions and suites, then one line per
/// finding, worst first.
enum AuditTerminalView {
    static func render(_ report: AuditReport) -> String {
        var lines: [String] = []
        for target in report.targets {
            lines.append("\(target.url)  (\(Int(target.durationMs.rounded())) ms)")
            if let error = target.error {
                lines.append("  error: \(error)")
                continue
            }
            for offer in target.offers {
                let state = offer.accepted == true ? "accepted" : offer.accepted == false ? "not accepted" : "not tested"
                var line = "  \(offer.version): \(state)"
                if !offer.ciphers.isEmpty { line += " — " + offer.ciphers.joined(separator: " ") }
                if !offer.untested.isEmpty { line += " (\(offer.untested.count) suites untested)" }
                lines.append(line)
            }
            if let group = target.keyExchangeGroup { lines.append("  key exchange: \(group)") }
            for finding in target.findings.sorted(by: { $0.severity > $1.severity }) {
                lines.append("  \(finding.severity.rawValue.uppercased().padding(toLength: 4, withPad: " ", startingAt: 0)) \(finding.id): \(finding.observed)")
                if finding.severity >= .warn, !finding.client.isEmpty { lines.append("       client: \(finding.client)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
