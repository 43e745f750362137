import SondeCore

/// The key figures of one check in a few words, for the terminal's line per check and the HTML's
/// verdict table: a probe check's tasks, failures and median total time; a soak's connections,
/// reconnects, missed pings and lost messages; a resume check's verdicts and intact trials; then
/// what its kind's section renderer says of its items (`checkFigures`: an audit's URLs passed).
/// Unescaped text: each renderer escapes it for its medium.
enum CheckFigures {
    /// - Parameters: soaks, resume, sections: the run's; only the check's own entries are read.
    static func of(_ check: CheckReport, soaks: [SoakReport], resume: ResumeResults, sections: [ReportSection] = [],
                   renderers: ReportSectionRenderers = ReportSectionRenderers()) -> [String] {
        var figures: [String] = []
        if let summary = check.summary {
            var tasks = "\(summary.tasks) task\(summary.tasks == 1 ? "" : "s")"
            if summary.failedTasks > 0 { tasks += ", \(summary.failedTasks) failed" }
            figures.append(tasks)
            if let total = summary.all["total"]?.p50 { figures.append("total p50 \(formatMs(total)) ms") }
        }
        for soak in soaks where soak.check == check.name {
            figures.append("\(soak.connections) connection\(soak.connections == 1 ? "" : "s"), \(soak.reconnects.count) reconnects, "
                + "\(soak.pings.missed) pings missed, \(soak.messages.lost) messages lost")
        }
        let verdicts = resume.verdicts.filter { $0.check == check.name }
        if !verdicts.isEmpty { figures.append("\(verdicts.filter(\.resumable).count)/\(verdicts.count) resumable") }
        let trials = resume.trials.filter { $0.check == check.name }
        if !trials.isEmpty { figures.append("\(trials.filter(\.intact).count)/\(trials.count) trials intact") }
        return figures + renderers.checkFigures(sections, check: check.name)
    }
}
