import SondeCore

/// The terminal view of a probe run: an httpstat-style phase line and bar per transaction,
/// then cold-vs-warm distributions per phase. Pure: returns text; the CLI prints it.
///
/// Every string of data (URLs, messages, header evidence, close reasons, names read from a
/// journal or a capture) goes through `shown`, so the only escape sequences in the output are the
/// renderer's own colours (see `TerminalText`).
public struct TerminalRenderer: Sendable {
    public var useColor: Bool
    public var barWidth = 48
    /// The lines of the extensions' parts of a soak (`SoakPartRenderer`), after its pings.
    public var soakParts: [any SoakPartRenderer] = []

    public init(useColor: Bool) { self.useColor = useColor }


    private func paint(_ text: String, _ code: String) -> String {
        useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// A string of data as it may appear on a terminal.
    private func shown(_ text: String) -> String { TerminalText.sanitized(text) }

    /// A task: one block per transaction (redirect hops included), then its error if any.
    public func render(task: ProbeTask) -> String {
        var lines: [String] = []
        for (index, transaction) in task.transactionMetrics.enumerated() {
            lines.append(contentsOf: render(transaction: transaction, hop: task.transactionMetrics.count > 1 ? index : nil))
        }
        if task.transactionMetrics.isEmpty { lines.append(shown(task.url)) }
        if let error = task.error {
            lines.append("  " + paint("✗ \(shown(error.code.rawValue))", "31;1") + ": " + shown(error.message))
        }
        return lines.joined(separator: "\n")
    }

    func render(transaction t: TransactionMetrics, hop: Int?) -> [String] {
        var head = shown(t.request.method) + " " + shown(t.request.url)
        if let hop { head = "  ↳ hop \(hop): " + head }
        var facts: [String] = []
        if let status = t.response?.statusCode { facts.append(paint(String(status), status >= 400 ? "31" : "32")) }
        if let proto = t.networkProtocolName {
            facts.append(shown(proto) + (t.http3Fallback != nil ? paint(" (fell back from h3)", "33") : ""))
        }
        if let id = t.connectionID {
            facts.append(t.isReusedConnection ? "reused conn #\(id)" : "new conn #\(id)")
        }
        if let tls = t.negotiatedTLSProtocolVersion {
            facts.append(shown(tls) + (t.tlsSessionReused == true ? " (resumed)" : ""))
        }
        if t.response != nil {
            // A decoded body: the wire's bytes, then what the app reads ("19.4 KiB gzip → 204.9 KiB").
            if let encoding = t.contentEncoding, let decoded = t.countOfResponseBodyBytesAfterDecoding, decoded != t.countOfResponseBodyBytesReceived {
                facts.append("\(formatBytes(t.countOfResponseBodyBytesReceived)) \(shown(encoding)) → \(formatBytes(decoded))")
            } else {
                facts.append(formatBytes(t.countOfResponseBodyBytesReceived))
            }
        }
        var lines = [head + "  " + facts.joined(separator: " · ")]
        // The race is told once, where it ran: on the transaction that opened the connection.
        if let fallback = t.http3Fallback, !t.isReusedConnection {
            lines.append("    " + paint("↩ HTTP/3 fell back to TCP:", "33") + " " + shown(fallback.reason))
        }
        // Told where the protocol changed: on the transaction that opened the QUIC connection.
        if let altSvc = t.altSvc, !t.isReusedConnection {
            lines.append("    " + paint("↗ h3 through Alt-Svc:", "36") + " " + shown(altSvc.summary))
        }
        // Told on the transaction that went to the origin instead.
        if let failure = t.altSvcFailure {
            lines.append("    " + paint("↩ Alt-Svc alternative failed:", "33") + " " + shown(failure.summary))
        }
        let p = t.phases
        let parts = Phase.timeline.map { phase -> String in
            "\(phase.name) " + (p[phase].map(formatMs) ?? "–")
        }
        // A hop that waited in sonde's queue (--parallel) says so first: its phases start after it.
        // (Under 0.1 ms it is only libcurl picking the transfer up.)
        let queued = (t.queue ?? 0) >= 0.1 ? ["queue " + formatMs(t.queue ?? 0)] : []
        lines.append("    " + (queued + parts).joined(separator: " │ ") + " │ total " + (p.total.map(formatMs) ?? "–") + " ms")
        lines.append("    ▕" + bar(p) + "▏")
        return lines
    }

    /// A proportional bar of the phases, one letter per phase (d c t s w r).
    func bar(_ phases: Phases) -> String {
        guard let total = phases.total, total > 0 else { return String(repeating: " ", count: barWidth) }
        var result = ""
        var used = 0
        var carried = 0.0
        for phase in Phase.timeline {
            guard let value = phases[phase], value > 0, let style = phase.style else { continue }
            let exact = Double(barWidth) * value / total + carried
            let cells = max(1, Int(saturating: exact.rounded(.down)))
            carried = exact - Double(cells)
            let count = min(cells, barWidth - used)
            guard count > 0 else { break }
            result += paint(String(repeating: style.letter, count: count), style.ansiColor)
            used += count
        }
        if used < barWidth { result += String(repeating: " ", count: barWidth - used) }
        return result
    }


    /// One capture: a line per TCP connection (the first 200), Wireshark-style counters ↑/↓, then
    /// a line per QUIC connection (the first 200).
    public func render(capture: CaptureReport) -> String {
        var lines = ["\(shown(capture.file)): \(shown(capture.linkType)), \(capture.packets) packets, \(capture.flows.count) TCP connections"
            + (capture.quicFlows.isEmpty ? "" : ", \(capture.quicFlows.count) QUIC connections")
            + (capture.complete ? "" : " (PARTIAL: \(shown(capture.problems.joined(separator: "; "))))")]
        if !capture.flows.isEmpty || capture.quicFlows.isEmpty {
            lines.append("connection                                      hs   iRTT ms   seg ↑/↓      retr ↑/↓  dupack ↑/↓  ooo ↑/↓  zwin ↑/↓  rst fin  tls")
        }
        for flow in capture.flows.prefix(200) {
            let up = flow.clientToServer, down = flow.serverToClient
            let columns = [
                pad(shown(flow.tuple), 46), pad(flow.handshake.complete ? "yes" : "no", 4, left: true),
                pad(flow.initialRttMs.map { formatMs($0) } ?? "–", 10, left: true),
                pad("\(up.segments)/\(down.segments)", 12, left: true), pad("\(up.retransmissions)/\(down.retransmissions)", 10, left: true),
                pad("\(up.duplicateAcks)/\(down.duplicateAcks)", 12, left: true), pad("\(up.outOfOrder)/\(down.outOfOrder)", 9, left: true),
                pad("\(up.zeroWindows)/\(down.zeroWindows)", 10, left: true), pad("\(flow.resets)", 5, left: true), pad("\(flow.fins)", 4, left: true),
                flow.tls.map { "  " + shown(CaptureSection.tlsSummary($0)) } ?? "",
            ]
            lines.append(columns.joined())
        }
        if capture.flows.count > 200 { lines.append("… \(capture.flows.count - 200) more connections in the report") }
        if !capture.quicFlows.isEmpty { lines += render(quicFlows: capture.quicFlows) }
        if let omitted = capture.omitted { lines.append(omitted.summary + ".") }
        return lines.joined(separator: "\n")
    }

    /// A line per QUIC connection (the first 200): the wire's round trip and handshake, datagrams,
    /// bytes and Initial / Handshake / 1-RTT packets ↑/↓.
    private func render(quicFlows: [QUICFlowEvidence]) -> [String] {
        var lines = ["QUIC connection                                 iRTT ms     hs ms   dgram ↑/↓     bytes ↑/↓   Initial ↑/↓  Handshake ↑/↓  1-RTT ↑/↓  version"]
        for flow in quicFlows.prefix(200) {
            let up = flow.clientToServer, down = flow.serverToClient
            let columns = [
                pad(shown(flow.tuple), 46), pad(flow.initialRttMs.map { formatMs($0) } ?? "–", 10, left: true),
                pad(flow.handshakeMs.map { formatMs($0) } ?? "–", 10, left: true),
                pad("\(up.datagrams)/\(down.datagrams)", 12, left: true), pad("\(up.bytes)/\(down.bytes)", 14, left: true),
                pad("\(up.initialPackets)/\(down.initialPackets)", 14, left: true),
                pad("\(up.handshakePackets)/\(down.handshakePackets)", 15, left: true),
                pad("\(up.shortHeaderPackets)/\(down.shortHeaderPackets)", 11, left: true),
                "  " + shown(flow.versionName ?? flow.version ?? "–")
                    + (flow.problems.isEmpty ? "" : " · " + shown(flow.problems.joined(separator: "; "))),
            ]
            lines.append(columns.joined())
        }
        if quicFlows.count > 200 { lines.append("… \(quicFlows.count - 200) more QUIC connections in the report") }
        return lines
    }

    /// The regression table against a baseline run: p50/p95/p99 per phase, change in ms and %.
    public func render(baseline comparison: BaselineComparison) -> String {
        var lines = [paint("compared with \(shown(comparison.baselineRunID)) (\(comparison.baselineTasks) tasks)", "1")]
        lines.append("phase.agg       baseline     this run     change (ms)")
        for row in comparison.rows {
            let ratio = row.changeRatio.map { " (" + ($0 >= 0 ? "+" : "") + formatMs($0 * 100) + "%)" } ?? ""
            let change = (row.changeMs >= 0 ? "+" : "") + formatMs(row.changeMs) + ratio
            let name = pad(shown(row.phase + "." + row.aggregation), 14)
            lines.append(name + pad(formatMs(row.baselineMs), 10, left: true) + pad(formatMs(row.currentMs), 13, left: true) + "     "
                + (row.isRegression ? paint(change, "31") : change))
        }
        return lines.joined(separator: "\n")
    }

    /// One line per threshold: verdict, expression, observed value against the bound.
    public func render(thresholds: [ThresholdResult]) -> String {
        thresholds.map { result in
            (result.passed ? paint("✓ threshold", "32") : paint("✗ threshold", "31;1")) + " " + shown(result.expression) + ": " + shown(result.message)
        }.joined(separator: "\n")
    }

    /// One line per check of a `sonde run` suite: status, name, kind, its key figures
    /// (`CheckFigures`), its error, and each of its thresholds that failed.
    /// - Parameters: soaks, resume, sections: the run's (`RunOutcome`); each line reads its check's own.
    public func render(checks: [CheckReport], soaks: [SoakReport] = [], resume: ResumeResults = ResumeResults(),
                       sections: [ReportSection] = [], renderers: ReportSectionRenderers = ReportSectionRenderers()) -> String {
        checks.map { check in
            let status: String
            switch check.status {
            case .passed: status = paint("✓ passed     ", "32;1")
            case .failed: status = paint("✗ failed     ", "31;1")
            case .error: status = paint("✗ error      ", "31;1")
            case .interrupted: status = paint("◌ interrupted", "33;1")
            case .timeout: status = paint("◌ timeout    ", "33;1")
            }
            var line = status + " " + shown(check.name) + " (" + shown(check.kind) + ")"
            let figures = CheckFigures.of(check, soaks: soaks, resume: resume, sections: sections, renderers: renderers)
            if !figures.isEmpty { line += ": " + shown(figures.joined(separator: "; ")) }
            if let error = check.error { line += " · " + paint(shown(error.code.rawValue), "31") + ": " + shown(error.message) }
            for result in check.thresholds where !result.passed {
                line += " · " + paint("✗ " + shown(result.expression), "31") + " (" + shown(result.message) + ")"
            }
            return line
        }.joined(separator: "\n") + linkComparison(checks)
    }

    /// "p50 by link, URL and protocol" (`LinkProtocolComparison`) after a suite's lines, when its
    /// probe checks ran over emulated links: per link, per URL, each check's medians; then each
    /// check's batch wall time. Empty otherwise.
    private func linkComparison(_ checks: [CheckReport]) -> String {
        guard let comparison = LinkProtocolComparison(checks) else { return "" }
        var lines = ["", paint(pad("p50 by link, URL and protocol (ms)", 38) + comparison.phases.map { pad($0, 9, left: true) }.joined(), "1")]
        var link: String?, resource: String?
        for row in comparison.rows {
            if row.conditions != link {
                link = row.conditions
                resource = nil
                lines.append(paint("link " + shown(row.conditions), "2"))
            }
            if row.resource != resource {
                resource = row.resource
                lines.append("  " + shown(row.resource))
            }
            let failed = (row.failedTasks ?? 0) > 0 ? " (\(row.failedTasks ?? 0) failed)" : ""
            if let figures = row.figures {
                lines.append(pad("    \(shown(row.check)) \(shown(row.protocolName)) \(figures.population) ×\(figures.count)\(failed)", 38)
                    + figures.p50.map { pad($0.map(formatMs) ?? "–", 9, left: true) }.joined())
            } else {
                lines.append("    \(shown(row.check)) \(shown(row.protocolName)): all \(row.tasks ?? 0) failed")
            }
        }
        if !comparison.batches.isEmpty {
            lines.append(paint("wall time of each check's fetches (first start to last end)", "2"))
            for batch in comparison.batches {
                var line = "  \(shown(batch.check)): \(formatMs(batch.wallMs / 1000)) s, \(batch.tasks) tasks"
                if batch.failedTasks > 0 { line += ", \(batch.failedTasks) failed" }
                if batch.omittedTasks > 0 { line += " (\(batch.omittedTasks) tasks of further URLs not counted)" }
                lines.append(line)
            }
        }
        return "\n" + lines.joined(separator: "\n")
    }

    /// A verdict check by check: what passed, what failed, and the evidence of failures.
    public func render(verdict: ResumeVerdict) -> String {
        var lines = [""]
        lines.append((verdict.resumable ? paint("✓ resumable", "32;1") : paint("✗ not resumable", "31;1")) + " " + shown(verdict.url))
        for check in verdict.checks {
            let mark = check.passed ? paint("✓", "32") : check.required ? paint("✗", "31") : paint("·", "2")
            lines.append("  \(mark) \(shown(check.name).padding(toLength: 16, withPad: " ", startingAt: 0)) \(shown(check.evidence))")
        }
        lines.append("URLSession: " + shown(verdict.urlSession))
        return lines.joined(separator: "\n")
    }

    /// One trial in a line (and its error in a second).
    public func render(trial: ResumeTrial) -> String {
        let mark = trial.intact ? paint("✓ intact", "32") : trial.sha256 == nil ? paint("✗ unfinished", "31") : paint("✗ CORRUPT", "31;1")
        var line = "trial \(trial.trial): \(mark) \(formatMs(trial.durationMs)) ms"
        if let goodput = trial.goodputMbps { line += ", \(trimmed(goodput, 1)) Mbit/s" }
        line += ", wasted \(trial.bytesWasted) B"
        if !trial.interruptions.isEmpty {
            line += "; " + trial.interruptions.map { "\(shown($0.kind.rawValue))@\($0.atByte)→\(shown($0.answeredWith ?? "-"))" }.joined(separator: " ")
        }
        if !trial.retries.isEmpty { line += "; \(trial.retries.count) retries" }
        if let error = trial.error { line += "\n  " + paint("\(shown(error.code.rawValue)): \(shown(error.message))", "31") }
        return line
    }

    /// The totals of a run's trials in one line.
    public func render(trialTotals trials: [ResumeTrial]) -> String {
        let intact = trials.filter(\.intact).count
        let latencies = trials.flatMap { $0.interruptions.compactMap(\.resumeLatencyMs) }.sorted()
        var total = paint("\(intact)/\(trials.count) intact", intact == trials.count ? "32;1" : "31;1")
            + ", \(trials.reduce(0) { $0 + $1.interruptions.count }) interruptions, \(trials.reduce(Int64(0)) { $0 + $1.bytesWasted }) bytes wasted"
        if !latencies.isEmpty {
            total += ", time to resume ms p50 \(formatMs(latencies[latencies.count / 2])) max \(formatMs(latencies.last!))"
        }
        return total
    }

    /// A soak's outcome: verdict, connections, pings, messages, reconnects by cause, backoff.
    public func render(soak: SoakReport) -> String {
        var lines = [""]
        let noun = soak.idleTimeout == nil ? "soak" : "idle-timeout discovery"
        let verdict = soak.verdict
        let mark = verdict == .interrupted ? paint("… \(noun) \(verdict.words)", "33;1")
            : verdict.passed ? paint("✓ \(noun) \(verdict.words)", "32;1") : paint("✗ \(noun) \(verdict.words)", "31;1")
        lines.append(mark + " " + shown(soak.url))
        for problem in soak.problems { lines.append("  " + paint(shown(problem), "31")) }
        let failed = soak.reconnects.failedAttempts
        let failures = failed.isEmpty ? "" : " (\(failed.values.reduce(0, +)) failed: "
            + failed.sorted { $0.key < $1.key }.map { "\(shown($0.key)) \($0.value)" }.joined(separator: ", ") + ")"
        lines.append("connections \(soak.connections), attempts \(soak.attempts.count)\(failures), reconnects \(soak.reconnects.count), "
            + "up at end \(soak.upAtEnd), gave up \(soak.gaveUp)")
        var pings = "pings \(soak.pings.sent) sent, \(soak.pings.answered) answered, \(soak.pings.missed) missed"
        if let rtt = soak.pings.rttMs {
            pings += "; rtt ms p50 \(formatMs(rtt.p50)) p90 \(formatMs(rtt.p90)) p99 \(formatMs(rtt.p99)) max \(formatMs(rtt.max))"
        }
        if soak.pings.serverPings > 0 { pings += "; server pings \(soak.pings.serverPings)" }
        lines.append(pings)
        for part in soakParts { lines += part.lines(soak).map(shown) }
        let m = soak.messages
        if m.sent > 0 {
            var text = "messages \(m.sent) sent, \(m.received) echoed, \(m.lost) lost, \(m.corrupted) corrupted, "
                + "\(m.duplicated) duplicated, \(m.reordered) reordered"
            if let rtt = m.rttMs { text += "; echo rtt ms p50 \(formatMs(rtt.p50)) p99 \(formatMs(rtt.p99))" }
            lines.append(text)
        }
        if m.fromServer.count > 0 {
            lines.append("messages from the server \(m.fromServer.count) (\(m.fromServer.bytes) bytes"
                + (m.fromServer.ratePerSecond.map { ", \(formatMs($0))/s per connection" } ?? "") + "), not echoes")
        }
        let causes = soak.unplannedDisconnects
        if !causes.isEmpty {
            lines.append("disconnects: " + causes.sorted { $0.key < $1.key }.map { "\(shown($0.key)) \($0.value)" }.joined(separator: ", ")
                + (soak.disconnects.byCloseCode.isEmpty ? "" : "; close codes: "
                    + soak.disconnects.byCloseCode.sorted { $0.key < $1.key }.map { "\(shown($0.key)) \($0.value)" }.joined(separator: ", ")))
        }
        if let recover = soak.reconnects.timeToRecoverMs {
            lines.append("time to recover ms: p50 \(formatMs(recover.p50)) p90 \(formatMs(recover.p90)) max \(formatMs(recover.max))")
        }
        for step in soak.backoffSchedule.prefix(8) {
            lines.append("backoff retry \(step.failure): waited \(formatMs(step.minMs))–\(formatMs(step.maxMs)) ms ×\(step.count) "
                + "(policy \(formatMs(step.policyMinMs))–\(formatMs(step.policyMaxMs)) ms)")
        }
        if let idle = soak.idleTimeout {
            if let cut = idle.shortestCutS {
                lines.append(paint("idle timeout: silences of \(formatMs(cut)) s were cut (\(shown(idle.cutBy ?? "?")))", "1")
                    + (idle.longestSurvivedS.map { "; \(formatMs($0)) s survived" } ?? "; none survived"))
            } else {
                lines.append("idle timeout: no silence up to \(formatMs(idle.maxIdleS)) s was cut")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The link a check or run is about to cross: `link 3g: down 780 kbit/s +100 ms, …`.
    public func render(linkConditions link: LinkUse) -> String {
        paint("link ", "2") + shown(link.conditions.summary)
    }

    /// What the emulator did over the check or run: both directions' counters.
    public func render(linkCounters link: LinkUse) -> String {
        var line = paint("link ", "2") + shown(link.conditions.profile) + ": "
        if let down = link.down, let up = link.up {
            line += "down " + down.summary + "; up " + up.summary
        } else {
            line += "no counters (the emulator did not report)"
        }
        if let problem = link.problem { line += "; " + paint("the emulator stopped early: " + shown(problem), "31") }
        // Per connection when there is more than one, those with drops first: at most eight lines.
        let connections = link.connections ?? []
        guard connections.count > 1 else { return line }
        let ordered = connections.enumerated().sorted { a, b in
            let (x, y) = (a.element.down.dropped + a.element.up.dropped, b.element.down.dropped + b.element.up.dropped)
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element)
        for connection in ordered.prefix(Self.linkConnectionLines) {
            let flow = connection.localPort == 0 ? shown(connection.protocolName)
                : "\(shown(connection.protocolName)) :\(connection.localPort) → \(shown(connection.remoteAddress)):\(connection.remotePort)"
                    + (connection.service.map { " (\(shown($0)))" } ?? "")
            line += "\n  " + flow + "  down " + connection.down.summary + "; up " + connection.up.summary
        }
        if connections.count > Self.linkConnectionLines {
            line += "\n  … \(connections.count - Self.linkConnectionLines) more connections (report.json: link.connections)"
        }
        return line
    }

    /// The most connections a link's counters list in the terminal.
    static let linkConnectionLines = 8

    /// Cold vs warm distributions per phase, and the run's totals.
    public func render(summary: ProbeSummary) -> String {
        var lines: [String] = []
        lines.append("")
        let header = "phase      " + "cold: n     min     p50     p95     max" + "   │ " + "warm: n     min     p50     p95     max"
        lines.append(paint(header, "1"))
        for name in Phases.names {
            let cold = summary.cold[name]
            let warm = summary.warm[name]
            guard cold != nil || warm != nil else { continue }
            lines.append(pad(name, 11) + cells(cold) + "   │ " + cells(warm))
        }
        lines.append("(ms; cold = transactions that opened a connection, warm = on a reused one)")
        var totals = "tasks \(summary.tasks), transactions \(summary.transactions), reused \(summary.reusedTransactions)"
        if summary.failedTasks > 0 {
            let errors = summary.errorsByCode.sorted { $0.key < $1.key }.map { "\(shown($0.key)) \($0.value)" }.joined(separator: ", ")
            totals += ", " + paint("failed \(summary.failedTasks)", "31") + " (\(errors))"
        }
        lines.append(totals)
        if !summary.protocols.isEmpty {
            lines.append("protocols: " + summary.protocols.sorted { $0.key < $1.key }.map { "\(shown($0.key)) \($0.value)" }.joined(separator: ", "))
        }
        lines.append(RequestFiguresText.throughput(summary))
        lines += protocolComparison(summary)
        lines += requestTable(summary)
        return lines.joined(separator: "\n")
    }

    /// A line per request name (`summary.byRequest`): tasks, failures, the total's p50/p95/p99
    /// (ms, over every transaction with a response), bytes received and sent.
    private func requestTable(_ summary: ProbeSummary) -> [String] {
        guard !summary.byRequest.isEmpty else { return [] }
        let names = summary.byRequest.map { shown($0.name) }
        let width = min(60, max(7, names.map(\.count).max() ?? 0))
        var lines = ["", paint(pad("request", width) + "      n  failed   p50 ms   p95 ms   p99 ms    received        sent", "1")]
        for (request, name) in zip(summary.byRequest, names) {
            let total = request.all["total"]
            let failed = pad(String(request.errors), 8, left: true)
            lines.append(pad(name, width) + pad(String(request.count), 7, left: true) + (request.errors > 0 ? paint(failed, "31") : failed)
                + [total?.p50, total?.p95, total?.p99].map { pad($0.map(formatMs) ?? "–", 9, left: true) }.joined()
                + pad(formatBytes(request.bytesReceived), 12, left: true) + pad(formatBytes(request.bytesSent), 12, left: true))
        }
        if let omitted = summary.requestsOmitted {
            lines.append("… \(omitted) tasks of further names (only the first \(ProbeSummary.maxRequests) names are kept)")
        }
        return lines
    }

    /// "p50 by protocol": `ProtocolComparison`'s rows, when the run holds more than one protocol.
    private func protocolComparison(_ summary: ProbeSummary) -> [String] {
        guard let comparison = ProtocolComparison(summary) else { return [] }
        var lines = ["", paint(pad("p50 by protocol", 18) + comparison.phases.map { pad($0, 9, left: true) }.joined(), "1")]
        for row in comparison.rows {
            lines.append(pad("\(shown(row.protocolName)) \(row.population) ×\(row.count)", 18)
                + row.p50.map { pad($0.map(formatMs) ?? "–", 9, left: true) }.joined())
        }
        return lines
    }

    private func cells(_ stats: DistributionSummary?) -> String {
        guard let stats else { return pad("–", 7, left: true) + String(repeating: " ", count: 32) }
        return pad(String(stats.count), 7, left: true)
            + [stats.min, stats.p50, stats.p95, stats.max].map { pad(formatMs($0), 8, left: true) }.joined()
    }
}

/// Milliseconds with two significant decimals at most: "0.42", "12.5", "250". Values from a
/// journal can be anything: one beyond Int's range (or infinite) is written as Swift prints it.
public func formatMs(_ value: Double) -> String {
    if value >= 100 { return value < 1e15 ? String(Int(value.rounded())) : "\(value)" }
    if value >= 10 { return trimmed(value, 1) }
    return trimmed(value, 2)
}

private func trimmed(_ value: Double, _ digits: Int) -> String {
    let scale = digits == 1 ? 10.0 : 100.0
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    }
    return text
}

/// "512 B", "12.5 KiB", "3.2 MiB".
public func formatBytes(_ count: Int64) -> String {
    if count < 1024 { return "\(count) B" }
    if count < 1024 * 1024 { return trimmed(Double(count) / 1024, 1) + " KiB" }
    return trimmed(Double(count) / 1_048_576, 1) + " MiB"
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let count = text.count
    guard count < width else { return text }
    let padding = String(repeating: " ", count: width - count)
    return left ? padding + text : text + padding
}
