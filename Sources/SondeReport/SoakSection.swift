import SondeCore

/// The HTML section of a WebSocket soak: the verdict and counts in words, a timeline of ping
/// RTT per connection with disconnects and missed pings marked, an RTT histogram, disconnects by
/// cause and close code, the backoff schedule beside the policy, the idle-timeout findings and
/// the attempts. Bounded: the timeline draws what the report keeps (20 connections), the attempt
/// table at most `attemptRows` rows (failures first). Every string is escaped.
enum SoakSection {
    static let attemptRows = 200
    private static let red = "#dc2626", blue = "#2563eb", grey = "#6b7280", amber = "#d97706"
    private static let palette = ["#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be123c", "#4d7c0f", "#a16207"]

    /// - Parameters:
    ///   - link: the emulated link the soaks crossed, whose outage windows the timeline shades.
    ///   - parts: the extensions' parts of a soak, each line a sentence after the pings'.
    static func render(_ soaks: [SoakReport], link: LinkUse? = nil, parts: [any SoakPartRenderer] = []) -> String {
        soaks.map { render($0, link: link, parts: parts) }.joined()
    }

    private static func render(_ soak: SoakReport, link: LinkUse?, parts: [any SoakPartRenderer]) -> String {
        let title = soak.idleTimeout == nil ? "WebSocket soak" : "Idle-timeout discovery"
        var html = "<section><h2>\(title) <code>\(htmlEscape(soak.url))</code></h2>\n"
        let verdict = soak.verdict
        let status = verdict == .interrupted ? "interrupted" : verdict.passed ? "passed" : "failed"
        html += "<p class=\"status \(status)\">\(htmlEscape(verdict.words))</p>\n"
        if !soak.problems.isEmpty {
            html += "<ul>" + soak.problems.map { "<li class=\"warn\">\(htmlEscape($0))</li>" }.joined() + "</ul>\n"
        }
        html += words(soak, parts: parts)
        html += timeline(soak, link: link)
        html += histogram(soak)
        html += disconnectTable(soak)
        html += backoffTable(soak)
        html += idleTable(soak.idleTimeout)
        html += attemptTable(soak)
        return html + "</section>\n"
    }

    /// How long the soak ran, seconds (nil for a killed run).
    private static func ranS(_ soak: SoakReport) -> Double? {
        soak.finishedAt.map { max(0, Double($0.microsecondsSince1970 &- soak.startedAt.microsecondsSince1970) / 1e6) }
    }

    private static func words(_ soak: SoakReport, parts: [any SoakPartRenderer]) -> String {
        if let findings = soak.idleTimeout { return discoveryWords(soak, findings) }
        let c = soak.config
        var items: [String] = []
        // The planned duration, and what the run lasted when it ended early (interrupted, gave up).
        let ran = ranS(soak).flatMap { $0 + 1 < c.durationS ? "; it ended after \(formatMs($0)) s" : nil } ?? ""
        items.append("\(soak.connections) connection\(soak.connections == 1 ? "" : "s") for \(formatMs(c.durationS)) s"
            + (c.rampS > 0 ? " (ramp \(formatMs(c.rampS)) s)" : "") + ran + "; \(soak.upAtEnd) up at the end, \(soak.gaveUp) gave up.")
        if c.pingIntervalS > 0 {
            var ping = "Pings every \(formatMs(c.pingIntervalS)) s (pong timeout \(formatMs(c.pongTimeoutS)) s): "
                + "\(soak.pings.answered) of \(soak.pings.sent) answered, \(soak.pings.missed) missed"
            if let rtt = soak.pings.rttMs {
                ping += "; RTT p50 \(formatMs(rtt.p50)) ms, p90 \(formatMs(rtt.p90)) ms, p99 \(formatMs(rtt.p99)) ms, max \(formatMs(rtt.max)) ms"
            }
            items.append(ping + ".")
        } else {
            items.append("No keepalive pings (--ping-interval 0).")
        }
        for part in parts { items += part.lines(soak).map { $0 + "." } }
        if soak.pings.serverPings > 0 || soak.pings.unsolicitedPongs > 0 {
            items.append("The server sent \(soak.pings.serverPings) pings (answered) and \(soak.pings.unsolicitedPongs) unsolicited pongs.")
        }
        if c.messageRate > 0 {
            let m = soak.messages
            var text = "Messages (\(formatMs(c.messageRate))/s of \(c.messageSize) bytes per connection): \(m.sent) sent, "
                + "\(m.received) echoed intact, \(m.lost) lost, \(m.corrupted) corrupted, \(m.duplicated) duplicated, \(m.reordered) reordered"
            if let rtt = m.rttMs { text += "; echo RTT p50 \(formatMs(rtt.p50)) ms, p99 \(formatMs(rtt.p99)) ms" }
            items.append(text + ".")
        }
        let pushed = soak.messages.fromServer
        if pushed.count > 0 {
            items.append("The server sent \(pushed.count) message\(pushed.count == 1 ? "" : "s") of its own (\(pushed.bytes) bytes"
                + (pushed.ratePerSecond.map { ", \(formatMs($0))/s per connection" } ?? "") + "): counted apart, never as echoes.")
        }
        let r = soak.reconnects
        let failedAttempts = r.failedAttempts.values.reduce(0, +)
        var reconnect = "\(soak.disconnectCount) disconnect\(soak.disconnectCount == 1 ? "" : "s"), \(r.count) reconnect\(r.count == 1 ? "" : "s"); "
            + "\(soak.attempts.count) attempt\(soak.attempts.count == 1 ? "" : "s"), \(failedAttempts) failed"
            + (failedAttempts == 0 ? "" : " (" + r.failedAttempts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        if let recover = soak.reconnects.timeToRecoverMs {
            reconnect += "; time to recover p50 \(formatMs(recover.p50)) ms, max \(formatMs(recover.max)) ms"
        }
        items.append(reconnect + ". Backoff: \(formatMs(c.backoff.initialMs)) ms × \(formatMs(c.backoff.multiplier)) up to "
            + "\(formatMs(c.backoff.maxMs)) ms, \(c.backoff.jitter.rawValue) jitter, reset after \(formatMs(c.stableAfterS)) s up"
            + (c.maxAttempts.map { ", give up after \($0) failures in a row" } ?? "") + ".")
        return "<ul>" + items.map { "<li>\(htmlEscape($0))</li>" }.joined() + "</ul>\n"
    }

    /// An idle-timeout discovery in words: its silent connections, how long it ran, what the
    /// pings after the silences found (a discovery has no keepalive pings and no reconnects).
    private static func discoveryWords(_ soak: SoakReport, _ findings: IdleTimeoutFindings) -> String {
        let probes = findings.probes.count
        let silences = findings.probes.map(\.plannedS)
        var first = "\(probes) silent connection\(probes == 1 ? "" : "s")"
        if let low = silences.min(), let high = silences.max() {
            first += " (silences of \(formatMs(low)) s to \(formatMs(high)) s, each pinged once at its end, pong timeout \(formatMs(soak.config.pongTimeoutS)) s)"
        }
        first += ranS(soak).map { "; the discovery ran \(formatMs($0)) s." } ?? "; killed before it ended."
        let survived = findings.probes.filter(\.survived).count
        let items = [first, "\(survived) of \(probes) survived their silence, \(probes - survived) did not."]
        return "<ul>" + items.map { "<li>\(htmlEscape($0))</li>" }.joined() + "</ul>\n"
    }

    /// Ping RTT over time, one line per connection (linear ms), disconnects as red ticks,
    /// missed pings as crosses; the emulated link's outage windows (`LinkUse.outages`) as amber bands;
    /// each axis names its unit (ms up, seconds since the start across), and a legend gives each connection's colour.
    static func timeline(_ soak: SoakReport, link: LinkUse?) -> String {
        guard !soak.timeline.isEmpty else { return "" }
        let width = 720.0, height = 256.0, left = 46.0, bottom = 38.0, top = 18.0
        // A soak's axis spans its planned duration; a discovery's, the time it ran (its config's duration is unused).
        let planned = soak.idleTimeout == nil ? soak.config.durationS * 1000 : (ranS(soak) ?? 0) * 1000
        let endMs = max(1, planned, soak.timeline.flatMap { $0.points.map { $0[0] } }.max() ?? 0)
        let rtts = soak.timeline.flatMap { $0.points.map { $0[1] } }.sorted()
        // Scale to the p99 of the drawn points (spikes beyond are clipped at the top), at least 1 ms.
        let yMax = max(1, rtts.isEmpty ? 1 : rtts[min(rtts.count - 1, Int(Double(rtts.count) * 0.99))] * 1.2)
        func x(_ ms: Double) -> Double { left + (width - left - 8) * min(max(ms / endMs, 0), 1) }
        func y(_ rtt: Double) -> Double { top + (height - top - bottom) * (1 - min(max(rtt / yMax, 0), 1)) }
        var svg = #"<figure><svg class="chart" viewBox="0 0 \#(n(width)) \#(n(height))" role="img" aria-label="ping round-trip time over time per connection" xmlns="http://www.w3.org/2000/svg">"#
        for step in 0...4 {
            let value = yMax * Double(step) / 4
            svg += #"<line x1="\#(n(left))" y1="\#(n(y(value)))" x2="\#(n(width - 8))" y2="\#(n(y(value)))" class="grid"/>"#
            svg += #"<text x="\#(n(left - 4))" y="\#(n(y(value) + 4))" text-anchor="end" class="axis">\#(formatMs(value))</text>"#
        }
        for step in 0...4 {
            let ms = endMs * Double(step) / 4
            svg += #"<text x="\#(n(x(ms)))" y="\#(n(height - 22))" text-anchor="middle" class="axis">\#(formatMs(ms / 1000))</text>"#
        }
        // The axes' units.
        svg += #"<text x="\#(n(left - 4))" y="11" text-anchor="end" class="axis unit">ms</text>"#
        svg += #"<text x="\#(n(left + (width - left - 8) / 2))" y="\#(n(height - 5))" text-anchor="middle" class="axis unit">seconds since the soak started</text>"#
        // The link's outages first (under everything): when the link was down, whatever the connections saw.
        let outages = (link?.outages ?? []).map { window in
            (from: Double(window.startedAt.microsecondsSince1970 &- soak.startedAt.microsecondsSince1970) / 1000,
             to: Double(window.endedAt.microsecondsSince1970 &- soak.startedAt.microsecondsSince1970) / 1000)
        }.filter { $0.to > 0 && $0.from < endMs }
        for window in outages {
            let title = "the emulated link was down from \(formatMs(max(0, window.from) / 1000)) s to \(formatMs(window.to / 1000)) s"
            svg += #"<g><title>\#(htmlEscape(title))</title><rect class="link-outage" x="\#(n(x(window.from)))" y="\#(n(top))" width="\#(n(max(1, x(window.to) - x(window.from))))" height="\#(n(height - bottom - top))" fill="\#(amber)" fill-opacity="0.22"/></g>"#
        }
        for (index, line) in soak.timeline.enumerated() {
            let color = palette[index % palette.count]
            // Outages first (under the lines): from the disconnect to the reopen (or the end). A
            // discovery's cut probes never reconnect: their cuts are its findings, not outages.
            for mark in line.disconnects where soak.idleTimeout == nil {
                let until = mark.recoveredAtMs ?? endMs
                let title = "connection \(line.connection) down from \(formatMs(mark.atMs / 1000)) s "
                    + (mark.recoveredAtMs.map { "to \(formatMs($0 / 1000)) s" } ?? "to the end")
                svg += #"<g><title>\#(htmlEscape(title))</title><rect class="outage" x="\#(n(x(mark.atMs)))" y="\#(n(top))" width="\#(n(max(1, x(until) - x(mark.atMs))))" height="\#(n(height - bottom - top))" fill="\#(red)" fill-opacity="0.08"/></g>"#
            }
            svg += #"<g><title>connection \#(line.connection)</title>"#
            for piece in pieces(line) {
                if piece.count > 1 {
                    let points = piece.map { "\(n(x($0[0]))),\(n(y($0[1])))" }.joined(separator: " ")
                    svg += #"<polyline points="\#(points)" fill="none" stroke="\#(color)" stroke-width="1.2"/>"#
                } else if let point = piece.first {
                    svg += #"<circle cx="\#(n(x(point[0])))" cy="\#(n(y(point[1])))" r="2" fill="\#(color)"/>"#
                }
            }
            svg += "</g>"
            for mark in line.disconnects {
                let title = "connection \(line.connection): \(mark.cause)" + (mark.closeCode.map { " \($0)" } ?? "") + " at \(formatMs(mark.atMs / 1000)) s"
                svg += #"<g><title>\#(htmlEscape(title))</title><line class="disconnect" x1="\#(n(x(mark.atMs)))" y1="\#(n(top))" x2="\#(n(x(mark.atMs)))" y2="\#(n(height - bottom))" stroke="\#(red)" stroke-width="1" stroke-dasharray="3 2"/></g>"#
            }
            for at in line.failedAttemptsAtMs {
                let cx = x(at), base = height - bottom
                svg += #"<g><title>connection \#(line.connection): attempt failed at \#(formatMs(at / 1000)) s</title><path class="failed-attempt" d="M\#(n(cx)) \#(n(base))L\#(n(cx - 3)) \#(n(base - 6))L\#(n(cx + 3)) \#(n(base - 6))Z" fill="\#(grey)"/></g>"#
            }
            for at in line.missedAtMs {
                let cx = x(at), cy = top + 4
                svg += #"<g><title>connection \#(line.connection): pong missing at \#(formatMs(at / 1000)) s</title><path d="M\#(n(cx - 3)) \#(n(cy - 3))L\#(n(cx + 3)) \#(n(cy + 3))M\#(n(cx - 3)) \#(n(cy + 3))L\#(n(cx + 3)) \#(n(cy - 3))" stroke="\#(red)" stroke-width="1.5"/></g>"#
            }
        }
        svg += "</svg>"
        let legend = soak.timeline.enumerated().map { index, line in
            "<span><i style=\"background:\(palette[index % palette.count])\"></i>connection \(line.connection)</span>"
        }.joined()
        return "<h3>Ping RTT over time</h3>\(svg)<figcaption><p class=\"legend\">\(legend)</p>"
            + "<p class=\"muted\">Ping round trips in milliseconds, first \(soak.timeline.count) connections; "
            + "dashed red lines: disconnects (hover for the cause), the shading up to the reconnect; grey triangles: failed attempts; "
            + "red crosses: missed pongs; "
            + (outages.isEmpty ? "" : "amber bands: the emulated link's outages (\(outages.count) in view); ")
            + "values above \(formatMs(yMax)) ms are drawn at the top.</p></figcaption></figure>\n"
    }

    /// A connection's points split at its disconnects, so that no line is drawn across an outage.
    static func pieces(_ line: SoakReport.PingSeries) -> [[[Double]]] {
        let cuts = line.disconnects.map(\.atMs).sorted()
        var pieces: [[[Double]]] = []
        var current: [[Double]] = []
        var next = 0
        for point in line.points {
            var crossed = false
            while next < cuts.count && cuts[next] <= point[0] {
                crossed = true
                next += 1
            }
            if crossed && !current.isEmpty {
                pieces.append(current)
                current = []
            }
            current.append(point)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// A histogram of the drawn ping RTTs on log-spaced bins.
    private static func histogram(_ soak: SoakReport) -> String {
        let rtts = soak.timeline.flatMap { $0.points.map { $0[1] } }.filter { $0 > 0 }
        guard rtts.count >= 2, let low = rtts.min(), let high = rtts.max(), high > low else { return "" }
        let bins = 24
        let logLow = log10(low), span = log10(high) - logLow
        var counts = [Int](repeating: 0, count: bins)
        for rtt in rtts { counts[max(0, min(bins - 1, Int(saturating: (log10(rtt) - logLow) / span * Double(bins))))] += 1 }
        let width = 720.0, height = 140.0, bottom = 22.0, barWidth = (width - 16) / Double(bins)
        let peak = Double(counts.max() ?? 1)
        var svg = #"<figure><svg class="chart" viewBox="0 0 \#(n(width)) \#(n(height))" role="img" aria-label="ping round-trip time histogram" xmlns="http://www.w3.org/2000/svg">"#
        for (index, count) in counts.enumerated() where count > 0 {
            let from = pow(10, logLow + span * Double(index) / Double(bins)), to = pow(10, logLow + span * Double(index + 1) / Double(bins))
            let h = (height - bottom - 6) * Double(count) / peak
            svg += #"<g><title>\#(formatMs(from))–\#(formatMs(to)) ms: \#(count)</title><rect x="\#(n(8 + Double(index) * barWidth))" y="\#(n(height - bottom - h))" width="\#(n(barWidth - 1))" height="\#(n(h))" fill="\#(blue)"/></g>"#
        }
        svg += #"<text x="8" y="\#(n(height - 6))" class="axis">\#(formatMs(low)) ms</text><text x="\#(n(width - 8))" y="\#(n(height - 6))" text-anchor="end" class="axis">\#(formatMs(high)) ms</text>"#
        return "<h3>Ping RTT histogram</h3>\(svg)</svg><figcaption class=\"muted\">\(rtts.count) pings of the connections drawn above, logarithmic bins.</figcaption></figure>\n"
    }

    private static func disconnectTable(_ soak: SoakReport) -> String {
        let causes = soak.unplannedDisconnects
        guard !causes.isEmpty || !soak.disconnects.byCloseCode.isEmpty else { return "" }
        var html = "<h3>Disconnects</h3><div class=\"scroll\"><table><thead><tr><th>cause</th><th>count</th></tr></thead><tbody>\n"
        for (cause, count) in causes.sorted(by: { $0.value > $1.value }) {
            html += "<tr><td>\(htmlEscape(cause))</td><td>\(count)</td></tr>\n"
        }
        html += "</tbody></table>"
        if !soak.disconnects.byCloseCode.isEmpty {
            html += "<table><thead><tr><th>close code</th><th>count</th></tr></thead><tbody>\n"
            for (code, count) in soak.disconnects.byCloseCode.sorted(by: { $0.key < $1.key }) {
                html += "<tr><td>\(htmlEscape(code))</td><td>\(count)</td></tr>\n"
            }
            html += "</tbody></table>"
        }
        return html + "</div>\n"
    }

    private static func backoffTable(_ soak: SoakReport) -> String {
        guard !soak.backoffSchedule.isEmpty else { return "" }
        var html = "<h3>Backoff schedule used</h3><div class=\"scroll\"><table><thead><tr><th>retry</th><th>policy range (ms)</th>"
            + "<th>waited (ms)</th><th>count</th><th>within policy</th></tr></thead><tbody>\n"
        for step in soak.backoffSchedule {
            let within = step.minMs >= step.policyMinMs - 0.001 && step.maxMs <= step.policyMaxMs + 0.001
            html += "<tr><td>\(step.failure)</td><td>\(formatMs(step.policyMinMs))–\(formatMs(step.policyMaxMs))</td>"
                + "<td>\(formatMs(step.minMs))–\(formatMs(step.maxMs))</td><td>\(step.count)</td>"
                + "<td class=\"\(within ? "pass" : "fail")\">\(within ? "yes" : "no")</td></tr>\n"
        }
        return html + "</tbody></table></div>\n"
    }

    private static func idleTable(_ findings: IdleTimeoutFindings?) -> String {
        guard let findings else { return "" }
        var html = "<h3>Idle timeout</h3><p>"
        if let cut = findings.shortestCutS {
            html += "Connections silent for \(formatMs(cut)) s were cut (\(htmlEscape(findings.cutBy ?? "?")))"
            html += findings.longestSurvivedS.map { "; the longest silence that survived was \(formatMs($0)) s." } ?? "; none survived."
        } else {
            html += "No silence up to \(formatMs(findings.maxIdleS)) s was cut."
        }
        html += "</p><div class=\"scroll\"><table><thead><tr><th>planned silence (s)</th><th>survived</th><th>cut after (s)</th><th>how</th></tr></thead><tbody>\n"
        for probe in findings.probes {
            html += "<tr><td>\(formatMs(probe.plannedS))</td><td class=\"\(probe.survived ? "pass" : "fail")\">\(probe.survived ? "yes" : "no")</td>"
                + "<td>\(probe.cutAfterS.map(formatMs) ?? "–")</td><td>\(htmlEscape(probe.cause ?? "–"))\(probe.closeCode.map { " \($0)" } ?? "")</td></tr>\n"
        }
        return html + "</tbody></table></div>\n"
    }

    private static func attemptTable(_ soak: SoakReport) -> String {
        guard !soak.attempts.isEmpty else { return "" }
        let failures = soak.attempts.filter(failed)
        var shown = Array(failures.prefix(attemptRows))
        if shown.count < attemptRows {
            shown += soak.attempts.filter { !failed($0) }.prefix(attemptRows - shown.count)
        }
        shown.sort { ($0.connection, $0.attempt) < ($1.connection, $1.attempt) }
        var html = "<h3>Attempts</h3><div class=\"scroll\"><table><thead><tr><th>conn.</th><th>attempt</th><th>waited (ms)</th>"
            + "<th>dns</th><th>connect</th><th>tls</th><th>upgrade</th><th>status</th><th>up (s)</th><th>ended by</th><th>close</th>"
            + "<th>recovered in (ms)</th></tr></thead><tbody>\n"
        for a in shown {
            let h = a.handshake
            let up: String
            if let opened = a.openedAt, let closed = a.closedAt {
                up = formatMs(Double(closed.microsecondsSince1970 - opened.microsecondsSince1970) / 1e6)
            } else {
                up = a.openedAt == nil ? "–" : "open"
            }
            let ended = a.error.map { "\($0.code.rawValue): \($0.message)" } ?? a.cause?.rawValue ?? "–"
            let close = a.closeCode.map { "\($0)" + (a.closeReason.map { " " + $0 } ?? "") + (a.closedBy.map { " (\($0))" } ?? "") } ?? "–"
            html += "<tr><td>\(a.connection)</td><td>\(a.attempt)</td><td>\(a.backoffMs.map(formatMs) ?? "–")</td>"
                + "<td>\(h.dnsMs.map(formatMs) ?? "–")</td><td>\(h.connectMs.map(formatMs) ?? "–")</td><td>\(h.tlsMs.map(formatMs) ?? "–")</td>"
                + "<td>\(h.upgradeMs.map(formatMs) ?? "–")</td><td>\(h.statusCode.map { String($0) } ?? "–")</td><td>\(up)</td>"
                + "<td class=\"text\(failed(a) ? " fail" : "")\">\(htmlEscape(ended))</td>"
                + "<td>\(htmlEscape(close))</td><td>\(a.timeToRecoverMs.map(formatMs) ?? "–")</td></tr>\n"
        }
        let more = soak.attempts.count - shown.count
        html += "</tbody></table></div>"
        if more > 0 { html += "<p class=\"muted\">\(more) more attempts in report.json.</p>" }
        return html + "\n"
    }

    /// An attempt that failed or was cut: not one the run (or a discovery probe) closed as planned.
    private static func failed(_ attempt: SoakAttempt) -> Bool {
        attempt.error != nil || (attempt.cause != nil && attempt.cause != .runEnded && attempt.cause != .probeFinished)
    }

    private static func n(_ value: Double) -> String { String(Double(Int(saturating: (value * 10).rounded())) / 10) }
}

#if canImport(Glibc)
import Glibc
#endif
