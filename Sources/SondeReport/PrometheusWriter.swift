import SondeCore

/// Renders a run as Prometheus text exposition (format 0.0.4) for node_exporter's textfile
/// collector. Names follow blackbox_exporter where the meaning is the same (`probe_success`,
/// `probe_duration_seconds`, `probe_http_duration_seconds{phase}`, `probe_http_version`,
/// `probe_http_status_code`, `probe_ssl_earliest_cert_expiry`); sonde's own carry `sonde_`.
///
/// A run holds many transactions where blackbox holds one: `probe_http_duration_seconds` is the
/// median per phase (processing = send + wait medians), and the per-request gauges
/// (`probe_http_version`, `probe_http_status_code`) appear only when every transaction agreed.
/// Label values are escaped as the format requires (backslash, double quote, newline).
public enum PrometheusWriter {
    typealias Sample = PrometheusFamilies.Sample
    typealias Families = PrometheusFamilies

    /// - Parameter checks: in a run of checks, every series of a check's figures (its probes, soak,
    ///   resume results, thresholds) carries `check="<name>"`, and `sonde_check_success` and
    ///   `sonde_check_duration_seconds` say how each check ended; the run's own series
    ///   (`probe_success`, `probe_duration_seconds`, its thresholds, `sonde_run_info`) keep their labels.
    /// - Parameter renderers: the extensions' parts of a soak (`SoakPartRenderer`), whose families follow the soak's,
    ///   and the check kinds' section renderers, whose `figureFamilies` of `sections`' items follow the resume results.
    public static func render(run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult], soaks: [SoakReport] = [],
                              resume: ResumeResults = ResumeResults(), checks: [CheckReport] = [],
                              sections: [ReportSection] = [], renderers: ReportSectionRenderers = ReportSectionRenderers()) -> String {
        families(run: run, summary: summary, thresholds: thresholds, soaks: soaks, resume: resume, checks: checks,
                 sections: sections, renderers: renderers).text
    }

    /// The families `render` writes, for a caller that merges several runs (`sonde serve`'s `/metrics`).
    /// - Parameter describingRun: whether labels name this one run's outcome: `sonde_run_info{run_id,…}`
    ///   and `sonde_check_success{status}`. A file describes one run; an exporter that serves each
    ///   check's latest run passes false, so that no label value changes from one run to the next (a
    ///   new `run_id` every run is a new series every run; a `status` that flips is a series gone and
    ///   one new): its runs' outcomes are `sonde_serve_runs_total{result}` and the series' values.
    public static func families(run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult], soaks: [SoakReport] = [],
                                resume: ResumeResults = ResumeResults(),
                                checks: [CheckReport] = [], describingRun: Bool = true,
                                sections: [ReportSection] = [], renderers: ReportSectionRenderers = ReportSectionRenderers()) -> PrometheusFamilies {
        var families = Families()
        let success = run.status == .passed && thresholds.allSatisfy(\.passed)
        families.add("probe_success", "gauge", "Whether the run passed: every task succeeded and every threshold held.",
                     [([], success ? 1 : 0)])
        if let finished = run.finishedAt {
            families.add("probe_duration_seconds", "gauge", "Wall time of the whole run.",
                         [([], seconds(from: run.startedAt, to: finished))])
        }
        // Figures measured over an emulated link carry `link="<profile>"`, so that runs on different links stay apart.
        func linkLabel(_ link: LinkUse?) -> [(String, String)] { link.map { [("link", $0.conditions.profile)] } ?? [] }
        var links: [(labels: [(String, String)], link: LinkUse)] = []
        if checks.isEmpty {
            figures(summary: summary, soaks: soaks, resume: resume, labels: linkLabel(run.link), soakParts: renderers.soakParts,
                    into: &families)
            families.add(renderers.figureFamilies(sections, check: nil, labels: linkLabel(run.link)))
            if let link = run.link { links.append(([], link)) }
        } else {
            for check in checks {
                let own = ResumeResults(trials: resume.trials.filter { $0.check == check.name },
                                        verdicts: resume.verdicts.filter { $0.check == check.name })
                let labels = [("check", check.name)] + linkLabel(check.link)
                figures(summary: check.summary, soaks: soaks.filter { $0.check == check.name }, resume: own,
                        labels: labels, soakParts: renderers.soakParts, into: &families)
                families.add(renderers.figureFamilies(sections, check: check.name, labels: labels))
                if let link = check.link { links.append(([("check", check.name)], link)) }
            }
        }
        families.add("sonde_link_packets", "gauge",
                     "Packets the emulated link handled, by direction and fate (delivered, or dropped by loss, queue, outage, or the TUN devices: tun_queue, tun_write).",
                     links.flatMap { entry -> [Sample] in
                         [("down", entry.link.down), ("up", entry.link.up)].flatMap { direction, counters -> [Sample] in
                             guard let counters else { return [] }
                             let base = entry.labels + [("link", entry.link.conditions.profile), ("direction", direction)]
                             return [("delivered", counters.packetsDelivered), ("loss", counters.droppedByLoss),
                                     ("queue", counters.droppedByQueue), ("outage", counters.droppedByOutage),
                                     ("tun_queue", counters.droppedByTUNQueue), ("tun_write", counters.droppedByTUNWrite)]
                                 .map { (base + [("fate", $0.0)], Double($0.1)) }
                         }
                     })
        families.add("sonde_threshold_passed", "gauge", "Whether each --threshold held (1) or not (0).",
                     (thresholds + checks.flatMap(\.thresholds)).map { result -> Sample in
                         ((result.check.map { [("check", $0)] } ?? []) + [("expression", result.expression)], result.passed ? 1 : 0)
                     })
        families.add("sonde_check_success", "gauge", "Whether each check of the suite passed (1) or not (0).",
                     checks.map { check -> Sample in
                         ([("check", check.name), ("kind", check.kind)] + (describingRun ? [("status", check.status.rawValue)] : []),
                          check.status == .passed ? 1 : 0)
                     })
        families.add("sonde_check_duration_seconds", "gauge", "Wall time of each check of the suite.",
                     checks.map { check -> Sample in ([("check", check.name)], seconds(from: check.startedAt, to: check.finishedAt)) })
        if describingRun {
            families.add("sonde_run_info", "gauge", "The run this file describes.",
                         [([("run_id", run.id), ("command", run.command), ("status", run.status.rawValue), ("version", SondeVersion.current)], 1)])
        }
        return families
    }

    /// The series of one set of figures (the run's, or a check's with `labels` = its check label
    /// first): probes (none when `summary` is nil), soaks, resume results.
    private static func figures(summary: ProbeSummary?, soaks: [SoakReport], resume: ResumeResults,
                                labels: [(String, String)], soakParts: [any SoakPartRenderer],
                                into families: inout Families) {
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [Sample]) {
            families.add(name, type, help, samples.map { sample -> Sample in (labels + sample.labels, sample.value) })
        }
        if let summary {
            // blackbox's phases (`Phase.blackboxPhase`), each the sum of its phases' medians.
            var phases: [Sample] = []
            for label in Phase.blackboxPhases {
                let medians = Phase.phases(inBlackboxPhase: label).map { summary.all[$0.name].map { $0.p50 / 1000 } }
                if let value = medians.reduce(nil, sum) { phases.append(([("phase", label)], value)) }
            }
            metric("probe_http_duration_seconds", "gauge", "Median duration of each phase over the run's transactions.", phases)
            if summary.protocols.count == 1, let name = summary.protocols.keys.first, let version = httpVersion(name) {
                metric("probe_http_version", "gauge", "HTTP version of every transaction.", [([], version)])
            }
            if summary.statusCodes.count == 1, let code = summary.statusCodes.keys.first.flatMap({ Double($0) }) {
                metric("probe_http_status_code", "gauge", "HTTP status code of every transaction.", [([], code)])
            }
            if let expiry = summary.earliestCertificateExpiry {
                metric("probe_ssl_earliest_cert_expiry", "gauge", "Earliest notAfter among the peer certificates seen, Unix seconds.",
                       [([], Double(expiry.microsecondsSince1970) / 1e6)])
            }
            metric("sonde_tasks", "gauge", "Tasks run.", [([], Double(summary.tasks))])
            metric("sonde_tasks_failed", "gauge", "Failed tasks by error code.",
                   summary.errorsByCode.sorted { $0.key < $1.key }.map { ([("code", $0.key)], Double($0.value)) })
            metric("sonde_transactions", "gauge", "Transactions (redirect hops count one each).", [([], Double(summary.transactions))])
            metric("sonde_transactions_reused", "gauge", "Transactions on a reused connection.", [([], Double(summary.reusedTransactions))])
            metric("sonde_http_responses", "gauge", "Responses by status code.",
                   summary.statusCodes.sorted { $0.key < $1.key }.map { ([("code", $0.key)], Double($0.value)) })
            var phaseSeries: [Families.SummarySeries] = []
            for (population, table) in [("all", summary.all), ("cold", summary.cold), ("warm", summary.warm)] {
                for phase in Phases.names {
                    guard let d = table[phase] else { continue }
                    phaseSeries.append(seconds(d, labels: labels + [("phase", phase), ("connection", population)],
                                               quantiles: ["0.5", "0.9", "0.95", "0.99", "1"]))
                }
            }
            families.addSummary("sonde_http_phase_seconds",
                                "Phase duration quantiles over all, cold (new connection) and warm (reused) transactions.", phaseSeries)
        }
        if !soaks.isEmpty {
            func each(_ value: (SoakReport) -> Double?) -> [Sample] {
                soaks.compactMap { soak in value(soak).map { ([("url", soak.url)], $0) } }
            }
            metric("sonde_ws_connections", "gauge", "WebSocket connections the soak held.", each { Double($0.connections) })
            metric("sonde_ws_up", "gauge", "WebSocket connections open when the soak ended.", each { Double($0.upAtEnd) })
            metric("sonde_ws_reconnects", "gauge", "Recoveries: connections opened again after a disconnect (failed attempts not counted).", each { Double($0.reconnects.count) })
            metric("sonde_ws_pings_missed", "gauge", "Pings whose pong did not come within the pong timeout.",
                   each { Double($0.pings.missed) })
            let rtt = soaks.compactMap { soak in
                soak.pings.rttMs.map { seconds($0, labels: labels + [("url", soak.url)], quantiles: ["0.5", "0.9", "0.99", "1"]) }
            }
            families.addSummary("sonde_ws_ping_rtt_seconds", "Ping to pong round-trip time quantiles.", rtt)
            var messages: [Sample] = []
            for soak in soaks {
                let m = soak.messages
                for (fate, count) in [("sent", m.sent), ("received", m.received), ("lost", m.lost), ("corrupted", m.corrupted)] {
                    messages.append(([("url", soak.url), ("fate", fate)], Double(count)))
                }
            }
            metric("sonde_ws_messages", "gauge", "Echo messages by fate.", messages)
            for part in soakParts { families.add(part.prometheus(soaks, labels: labels)) }
        }
        if !resume.trials.isEmpty {
            var byURL: [String: [ResumeTrial]] = [:]
            for trial in resume.trials { byURL[trial.url, default: []].append(trial) }
            let urls = byURL.keys.sorted()
            metric("sonde_resume_trials", "gauge", "Resume trials run, by outcome.", urls.flatMap { url -> [Sample] in
                let trials = byURL[url] ?? []
                return [([("url", url), ("outcome", "intact")], Double(trials.filter(\.intact).count)),
                        ([("url", url), ("outcome", "failed")], Double(trials.filter { !$0.intact }.count))]
            })
            metric("sonde_resume_bytes_wasted", "gauge", "Bytes received and thrown away by resume trials.",
                   urls.map { url in ([("url", url)], Double((byURL[url] ?? []).reduce(Int64(0)) { $0 &+ $1.bytesWasted })) })
        }
        if !resume.verdicts.isEmpty {
            metric("sonde_resume_resumable", "gauge", "Whether the URL resumes as URLSession resumes downloads (1) or not (0).",
                   resume.verdicts.map { ([("url", $0.url)], $0.resumable ? 1 : 0) })
        }
    }

    /// A distribution in milliseconds as a summary series in seconds: the named quantiles ("1" is
    /// the maximum), the sum (mean × count, to the microsecond its values have) and the count.
    public static func seconds(_ d: DistributionSummary, labels: [(String, String)], quantiles: [String]) -> PrometheusFamilies.SummarySeries {
        let values = ["0.5": d.p50, "0.9": d.p90, "0.95": d.p95, "0.99": d.p99, "1": d.max]
        return Families.SummarySeries(labels: labels, quantiles: quantiles.compactMap { q in values[q].map { (q, $0 / 1000) } },
                                      sum: (d.mean * Double(d.count) * 1000).rounded() / 1e6, count: d.count)
    }

    private static func seconds(from start: Timestamp, to end: Timestamp) -> Double {
        Double(end.microsecondsSince1970 &- start.microsecondsSince1970) / 1e6
    }

    private static func sum(_ a: Double?, _ b: Double?) -> Double? {
        guard a != nil || b != nil else { return nil }
        return (a ?? 0) + (b ?? 0)
    }

    private static func httpVersion(_ name: String) -> Double? {
        switch name {
        case "http/1.0": return 1.0
        case "http/1.1": return 1.1
        case "h2", "h2c": return 2
        case "h3": return 3
        default: return nil
        }
    }
}
