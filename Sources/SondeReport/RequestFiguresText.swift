import SondeCore

/// The per-request and throughput figures in words, shared by the terminal, the HTML, JUnit and
/// the Markdown summary. Unescaped text: each renderer escapes it for its medium.
enum RequestFiguresText {
    /// "8 requests in 2.04 s (3.92/s) · received 3.1 KiB · sent 712 B": transactions over the
    /// span of the tasks, and the bytes each way.
    static func throughput(_ summary: ProbeSummary) -> String {
        var text = "\(summary.transactions) request\(summary.transactions == 1 ? "" : "s")"
        if let duration = summary.durationMs { text += " in " + seconds(duration) }
        if let rate = summary.requestsPerSecond { text += " (\(formatMs(rate))/s)" }
        return text + " · received \(formatBytes(summary.bytesReceived)) · sent \(formatBytes(summary.bytesSent))"
    }

    /// A duration in ms as seconds: "2.04 s", "0.35 s", "125 s".
    static func seconds(_ milliseconds: Double) -> String { formatMs(milliseconds / 1000) + " s" }

    /// One request's figures in a sentence (JUnit's system-out): "4 tasks, 1 failed (timedOut 1);
    /// total p50 301 ms, p95 305 ms, p99 305 ms; received 1.5 KiB, sent 300 B".
    static func sentence(_ request: ProbeSummary.RequestFigures) -> String {
        var text = "\(request.count) task\(request.count == 1 ? "" : "s")"
        if request.errors > 0 { text += ", \(request.errors) failed (\(errorCodes(request)))" }
        if let total = request.all["total"] {
            text += "; total p50 \(formatMs(total.p50)) ms, p95 \(formatMs(total.p95)) ms, p99 \(formatMs(total.p99)) ms"
        }
        return text + "; received \(formatBytes(request.bytesReceived)), sent \(formatBytes(request.bytesSent))"
    }

    /// "timedOut 2, connectionRefused 1": the request's errors by code, most frequent first.
    static func errorCodes(_ request: ProbeSummary.RequestFigures) -> String {
        request.errorsByCode.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
