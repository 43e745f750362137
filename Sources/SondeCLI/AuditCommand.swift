import ArgumentParser
import Foundation
import SondeAudit
import SondeCore
import SondeRun
import SondeSuite

/// `sonde audit URL…`: what each server offers over TLS and how Apple's published rules (App
/// Transport Security, the iOS 13 certificate requirements, the 398-day limit, the CT policy) judge
/// it, and how its HTTP serves a URLSession or OkHttp client (compression, caching, keep-alive,
/// HTTP/2 and HTTP/3, redirects, secrets in URLs).
///
/// A run like every other: a run folder with report.json (`audits[]`), report.html, junit.xml
/// (a test case per finding), `--prom`, `--history`, `--json` (the report document on stdout).
/// Exit 0 without a `fail` (or, with `--fail-on warn`, without a `warn`) and every URL audited,
/// 1 otherwise, 64 on usage errors, 130 interrupted. Options are the audit spec's keys
/// (`AuditSpec`, the suite kind `audit`); `--link` runs it over an emulated link.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check an API for mobile clients: TLS and certificate against Apple's ATS rules, and HTTP as URLSession and OkHttp meet it.",
        discussion: """
        Each protocol version and cipher suite is tried alone, as testssl.sh and nscurl --ats-diagnostics do; the leaf \
        certificate and the served chain are checked. The URL is fetched as URLSession fetches it (Accept-Encoding: gzip, \
        deflate, br; redirects followed), twice, then revalidated, and its Alt-Svc h3 alternative tried: compression, \
        caching, keep-alive, HTTP/2, HTTP/3, redirects, secrets in URLs, HSTS; each of those requests' cold and warm cost \
        is stated (over --link, the link's). An http URL is checked for its redirect to https, and the https URL it leads \
        to is audited. The run folder holds report.json (audits[]), report.html and junit.xml. Finding ids: \
        \(AuditOptions.findingIDs.joined(separator: ", ")). See docs/audit.md for the rules and their sources.
        """)

    @Argument(help: .key(.auditURLs)) var urls: [String] = []

    @Option(name: .key(.cacert), help: .key(.cacert)) var cacert: String?
    @Option(name: .key(.only), help: .key(.only)) var only: [String] = []
    @Option(name: .key(.skip), help: .key(.skip)) var skip: [String] = []
    @Option(name: .key(.failOn), help: .key(.failOn)) var failOn: String?
    @Option(name: .key(.clients), help: .key(.clients)) var clients: String?
    @OptionGroup var connectTimeout: ConnectTimeoutOption
    @Option(name: .key(.timeout), help: .key(.timeout)) var timeout: DurationValue?
    @Option(name: .key(.budget), help: .key(.budget)) var budget: DurationValue?
    @Option(name: .key(.appReviewURLs), help: .key(.appReviewURLs)) var appReviewURLs: Int?
    @Option(name: .key(.cdnHosts), help: .key(.cdnHosts)) var cdnHosts: [String] = []
    @OptionGroup var link: LinkOption
    @OptionGroup var resolve: ResolveOption

    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var progress: ProgressOption
    @OptionGroup var report: ReportOptions

    /// The check this command line describes.
    var spec: AuditSpec {
        var spec = AuditSpec(urls: urls)
        spec.cacert = cacert
        if !only.isEmpty { spec.only = only }
        if !skip.isEmpty { spec.skip = skip }
        spec.failOn = failOn
        spec.clients = clients
        connectTimeout.apply(to: &spec)
        spec.timeout = timeout
        spec.budget = budget
        spec.appReviewURLs = appReviewURLs
        if !cdnHosts.isEmpty { spec.cdnHosts = cdnHosts }
        link.apply(to: &spec)
        resolve.apply(to: &spec)
        return spec
    }

    mutating func validate() throws {
        urls = PositionalRuns.split(urls)
        try spec.validateForCommandLine()
        // An audit is judged by its findings: no threshold metric describes it.
        if case .failure(let problem) = SpecRules.thresholds(report.thresholdExpressions, kind: AuditKind.self) {
            throw ValidationError(problem.description)
        }
    }

    func run() async throws {
        let spec = self.spec
        if printSuite.printSuite {
            try SuitePrinter.print(spec, thresholds: report.thresholdExpressions, redactor: report.redactor)
            return
        }
        let status = await CheckDriver(command: "audit", arguments: Array(CommandLine.arguments.dropFirst()), settings: progress.applied(to: report.settings))
            .run([PlannedCheck(name: nil, link: spec.linkProfile, runner: AuditCheckRunner(spec))])
        throw ExitCode(status.rawValue)
    }
}
