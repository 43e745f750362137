import Foundation
import SondeCore

/// The protocols compared link by link, URL by URL, phase by phase (issue 29's experiment): for a
/// suite whose probe checks ran over emulated links, each check's fetches of each URL (cold and
/// warm) with their median per phase, grouped by the link they crossed and by the URL's name (its
/// path and query: the h1/h2 and h3 sides of one server differ in their port only), and each
/// check's batch with its wall time (per check, not per URL: a check's URLs take turns, so one
/// URL's first start to last end would span the others' fetches). The terminal ("p50 by link, URL and protocol") and the HTML
/// ("Phases by link, URL and protocol") show it after the suite's verdict. Values are unescaped.
///
/// Why per URL and with wall times: medians pooled over different URLs are a median of neither
/// (a 1 KiB and a 2 MiB fetch), and phases start when a transfer does, so tasks that waited for one
/// of a few connections (`--parallel` beyond what an origin allows over h1) look no slower than
/// the others while their batch took as long: the batch's wall time (first start to last end) shows it.
///
/// Medians are each check's own (its summary's `byRequest`, or `byProtocol` pooled over its URLs
/// when a report has no `byRequest`, then named "all URLs"); checks are never merged. A request
/// the user named (`--name`, a suite's `{name: …, url: …}`) is compared by its name.
struct LinkProtocolComparison {
    /// One population (cold or warm) of one check's fetches of one URL.
    struct Row {
        /// The link's one-line conditions (`LinkConditions.summary`), which group the rows.
        var conditions: String
        /// The URL's name (path and query, or the request's own name), or "all URLs" for a check without per-request figures.
        var resource: String
        var check: String
        var protocolName: String
        /// The population's count and medians; nil for a URL none of whose fetches got a response.
        var figures: ProtocolComparison.Row?
        /// The check's tasks of this URL: how many, how many failed (nil for "all URLs").
        var tasks: Int?
        var failedTasks: Int?
    }

    /// One check's fetches over its link: how many and how long they took from the first task's
    /// start to the last one's end (the requests of `byRequest`).
    struct Batch {
        var conditions: String
        var check: String
        var tasks: Int
        var failedTasks: Int
        var wallMs: Double
        /// Tasks of URLs beyond those the summary kept (not in `tasks` or the wall time).
        var omittedTasks: Int
    }

    /// The phases any row has, in `Phases.names` order.
    let phases: [String]
    /// Links in the order their first check began; within a link, URLs in the order they were
    /// first fetched; within a URL, checks in order, cold before warm.
    let rows: [Row]
    /// Each check with per-URL figures, in the rows' check order.
    let batches: [Batch]

    /// The name a request is compared by: the name its user gave, else its URL's path.
    static func resource(_ request: ProbeSummary.RequestFigures) -> String {
        request.hasDefaultName ? resource(request.url) : request.name
    }

    /// The name a URL is compared by: its path and query (`/blob?x=1`), or the text itself when it
    /// does not parse.
    static func resource(_ url: String) -> String {
        guard let components = URLComponents(string: url), components.host != nil else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// nil unless at least one probe check with transactions ran over a link.
    init?(_ checks: [CheckReport]) {
        let measured = checks.compactMap { check -> (check: CheckReport, conditions: String)? in
            guard let link = check.link, (check.summary?.transactions ?? 0) > 0 else { return nil }
            return (check, link.conditions.summary)
        }
        guard !measured.isEmpty else { return nil }
        var links: [String] = []
        for entry in measured where !links.contains(entry.conditions) { links.append(entry.conditions) }
        /// A row before the phases are known: its figures' table.
        struct Pending {
            var conditions: String, resource: String, check: String
            var protocolName: String, population: String, table: [String: DistributionSummary]
            var figures: ProbeSummary.RequestFigures?
        }
        var pending: [Pending] = []
        var batches: [Batch] = []
        for link in links {
            let onLink = measured.filter { $0.conditions == link }
            // Every (check, URL) of the link, grouped by the URL's name in the order first fetched.
            var entries: [(resource: String, check: CheckReport, figures: ProbeSummary.RequestFigures?)] = []
            for (check, _) in onLink {
                guard let summary = check.summary else { continue }
                let requests = summary.byRequest
                if !requests.isEmpty {
                    for figures in requests { entries.append((Self.resource(figures), check, figures)) }
                    let first = requests.map(\.firstStart).min(), last = requests.map(\.lastEnd).max()
                    if let first, let last {
                        batches.append(Batch(conditions: link, check: check.name, tasks: requests.reduce(0) { $0 + $1.count },
                                             failedTasks: requests.reduce(0) { $0 + $1.errors },
                                             wallMs: Double(last.microsecondsSince1970 &- first.microsecondsSince1970) / 1000,
                                             omittedTasks: summary.requestsOmitted ?? 0))
                    }
                } else {
                    entries.append(("all URLs", check, nil))
                }
            }
            var resources: [(name: String, first: Int64)] = []
            for entry in entries {
                let start = entry.figures?.firstStart.microsecondsSince1970 ?? .max
                if let index = resources.firstIndex(where: { $0.name == entry.resource }) {
                    resources[index].first = min(resources[index].first, start)
                } else {
                    resources.append((entry.resource, start))
                }
            }
            for resource in resources.sorted(by: { $0.first != $1.first ? $0.first < $1.first : $0.name < $1.name }) {
                for (check, _) in onLink {
                    for entry in entries where entry.resource == resource.name && entry.check.name == check.name {
                        let tables = Self.tables(check: entry.check, figures: entry.figures).filter { !$0.table.isEmpty }
                        for table in tables {
                            pending.append(Pending(conditions: link, resource: resource.name, check: check.name, protocolName: table.protocolName,
                                                   population: table.population, table: table.table, figures: entry.figures))
                        }
                        if tables.isEmpty, let figures = entry.figures {
                            // Every fetch failed: a row all the same, with its tasks.
                            let name = figures.protocols.keys.sorted().joined(separator: "+")
                            pending.append(Pending(conditions: link, resource: resource.name, check: check.name, protocolName: name.isEmpty ? "?" : name,
                                                   population: "", table: [:], figures: figures))
                        }
                    }
                }
            }
        }
        let phases = Phases.names.filter { name in pending.contains { $0.table[name] != nil } }
        rows = pending.map { entry in
            Row(conditions: entry.conditions, resource: entry.resource, check: entry.check, protocolName: entry.protocolName,
                figures: ProtocolComparison.Row(protocolName: entry.protocolName, population: entry.population, table: entry.table, phases: phases),
                tasks: entry.figures?.count, failedTasks: entry.figures?.errors)
        }
        self.phases = phases
        self.batches = batches
    }

    /// The phase tables of one request of a check by population (its protocols joined: a check fetches
    /// a URL over one protocol unless Alt-Svc moved it), or the check's tables by protocol and
    /// population when it has no per-URL figures.
    private static func tables(check: CheckReport, figures: ProbeSummary.RequestFigures?)
        -> [(protocolName: String, population: String, table: [String: DistributionSummary])] {
        if let figures {
            let name = figures.protocols.keys.sorted().joined(separator: "+")
            return [(name.isEmpty ? "?" : name, "cold", figures.cold), (name.isEmpty ? "?" : name, "warm", figures.warm)]
        }
        guard let summary = check.summary else { return [] }
        if summary.byProtocol.isEmpty {
            let name = summary.protocols.keys.sorted().joined(separator: "+")
            return [(name.isEmpty ? "?" : name, "cold", summary.cold), (name.isEmpty ? "?" : name, "warm", summary.warm)]
        }
        return summary.byProtocol.sorted { $0.key < $1.key }.flatMap { name, tables in
            [(name, "cold", tables.cold), (name, "warm", tables.warm)]
        }
    }
}
