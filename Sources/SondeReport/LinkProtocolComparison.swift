import SondeCore

/// The protocols compared link by link, phase by phase (issue 29's experiment): for a suite whose
/// probe checks ran over emulated links, each check's protocols (cold and warm) with their median
/// per phase, grouped by the link they crossed. The terminal ("p50 by link and protocol") and the
/// HTML ("Phases by link and protocol") show it after the suite's verdict. Values are unescaped.
///
/// Medians are each check's own (its summary's `byProtocol`); checks are never merged, so two
/// checks on one link and protocol are two rows.
struct LinkProtocolComparison {
    /// One protocol's population of one check, as `ProtocolComparison` has it, with its link and check.
    struct Row {
        /// The link's one-line conditions (`LinkConditions.summary`), which group the rows.
        var conditions: String
        var check: String
        var figures: ProtocolComparison.Row
    }

    /// The phases any row has, in `Phases.names` order.
    let phases: [String]
    /// Links in the order their first check began; within a link, checks in order, then
    /// protocols by name, cold before warm.
    let rows: [Row]

    /// nil unless at least one probe check with transactions ran over a link.
    init?(_ checks: [CheckReport]) {
        let measured = checks.compactMap { check -> (check: CheckReport, conditions: String)? in
            guard let link = check.link, (check.summary?.transactions ?? 0) > 0 else { return nil }
            return (check, link.conditions.summary)
        }
        guard !measured.isEmpty else { return nil }
        var links: [String] = []
        for entry in measured where !links.contains(entry.conditions) { links.append(entry.conditions) }
        let ordered = links.flatMap { link in measured.filter { $0.conditions == link } }
        let phases = Phases.names.filter { name in
            ordered.contains { entry in Self.tables(entry.check).contains { $0.table[name] != nil } }
        }
        rows = ordered.flatMap { entry in
            Self.tables(entry.check).compactMap { table in
                ProtocolComparison.Row(protocolName: table.protocolName, population: table.population, table: table.table, phases: phases)
                    .map { Row(conditions: entry.conditions, check: entry.check.name, figures: $0) }
            }
        }
        self.phases = phases
    }

    /// A check's phase tables by protocol and population (its whole summary when it has no
    /// protocol breakdown).
    private static func tables(_ check: CheckReport) -> [(protocolName: String, population: String, table: [String: DistributionSummary])] {
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
