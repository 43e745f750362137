import Foundation
import SondeCapture
import SondeCore
import SondeHTTP
import SondeLink
import SondeReport
import SondeRun
import SondeSuite

/// Runs an audit check inside a run: each URL audited in turn (`Auditor`: the HTTP probes, the
/// TLS scan, the rules) on a dedicated thread, each result recorded as it ends (an item of the
/// `audits` section, `AuditSectionRenderer`)
/// and shown on the terminal. Over a link, the thread enters the link's namespace first: every
/// handshake and request of the audit (and the probe pool's threads, which inherit the namespace)
/// crosses it, so the measured requests' cold and warm costs are the link's.
///
/// Ctrl-C (or serve's run limit) is seen between URLs: the URL under way finishes within its
/// budgets (`AuditOptions.budgetMs` each: the HTTP probes, the TLS scan, the redirect hops'
/// certificates, the client-path probes).
public struct AuditCheckRunner: CheckRunner, Sendable {
    let urls: [String]
    let options: AuditOptions
    let failOn: AuditFinding.Severity
    /// The link's profile name, stamped on every result measured over it.
    var linkName: String?

    public init(_ spec: AuditSpec) {
        urls = spec.urls
        options = spec.auditOptions
        failOn = spec.failSeverity
        linkName = spec.linkProfile?.name
    }

    public var kind: any CheckKind.Type { AuditKind.self }

    // `prepare` and `trace` are the protocol's no-ops: the audit's handshakes bind no port block
    // (a capture of the run does not see them), and its requests go without `traceparent`.

    /// The audit's HTTP probes skip verification by design; cert.chain judges the chain.
    public var insecure: Bool { false }

    public var targets: (urls: [String], resolve: [String]) { (urls, []) }

    /// Where the audit's flows go (for a capture's filter).
    public var endpoints: [(address: String, port: Int)] { CaptureEndpoints.resolve(urls: urls, resolve: []) }

    public var interruptedNote: String { "the report holds the URLs audited before" }

    public func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
        let figures = LiveFigures()
        let total = urls.count
        let status = StatusLines(lifecycle.progressView(context), prefix: context.linePrefix) { elapsed in
            StatusLines.elapsed(elapsed) + figures.read { Self.statusLine($0, total: total) }
        }
        let outcome = await runOnDedicatedThread(named: "sonde-audit") {
            if let link = context.link {
                do throws(TaskError) { try link.enter() } catch { return CheckOutcome(error: error, setupFailed: true) }
            }
            defer { context.link?.leave() }
            return runBlocking(in: lifecycle, context, figures: figures)
        }
        await status.stop()
        return outcome
    }

    /// "audit: 2/5 URLs · 1 failed · auditing https://…".
    static func statusLine(_ figures: LiveFigures.Values, total: Int) -> String {
        "audit: \(figures.done)/\(total) URLs · \(figures.failed) failed" + (figures.doing.map { " · auditing " + $0 } ?? "")
    }

    private func runBlocking(in lifecycle: RunLifecycle, _ context: CheckContext, figures: LiveFigures) -> CheckOutcome {
        var options = options
        // Over a link, ipv6.app-review fetches the handed-out URLs there.
        if context.link != nil { options.link = linkName ?? "link" }
        let auditor = Auditor(options: options)
        var failed = false
        for url in urls {
            if lifecycle.interrupted { break }
            figures.update { $0.doing = lifecycle.settings.redactor.redact(url: url) }
            let result = AuditResult(check: context.name, failOn: failOn, target: auditor.audit(url),
                                     link: context.link == nil ? nil : linkName)
            figures.update {
                $0.done += 1
                if !result.passed { $0.failed += 1 }
                $0.doing = nil
            }
            do throws(TaskError) { try lifecycle.recorder.record(section: AuditSectionRenderer.name, item: result) } catch {
                return CheckOutcome(error: error, failedWork: true)
            }
            failed = failed || !result.passed
            if lifecycle.terminal {
                printLine(AuditTerminalView.render(result).split(separator: "\n", omittingEmptySubsequences: false)
                    .map { context.linePrefix + $0 }.joined(separator: "\n"))
            }
        }
        return CheckOutcome(failedWork: failed)
    }

    /// A plain `sonde audit`'s end: how many URLs passed (each was shown as it ended).
    public func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        let audits = AuditSectionRenderer.results(finished.sections.first { $0.name == AuditSectionRenderer.name }?.items ?? [])
        let passed = audits.filter(\.passed).count
        printLine("\n\(passed)/\(audits.count) URL\(audits.count == 1 ? "" : "s") passed the audit (fail-on \(failOn.rawValue))")
    }
}
