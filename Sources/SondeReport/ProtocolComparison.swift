import SondeCore

/// What the terminal summary ("p50 by protocol") and the HTML ("Phases by protocol") show when a
/// run holds more than one protocol (h2 and h3 after Alt-Svc, or an `--http3` race that fell
/// back): each protocol's cold and warm median per phase, side by side. Values are unescaped.
struct ProtocolComparison {
    struct Row {
        var protocolName: String
        /// "cold" or "warm".
        var population: String
        var count: Int
        /// The p50 of each of `phases`, in ms; nil where this row has none.
        var p50: [Double?]

        /// The row of one population's phase table (`Phase.names` keys), nil when it has no
        /// transactions; its count is the table's `total` (or any phase's) count.
        init?(protocolName: String, population: String, table: [String: DistributionSummary], phases: [String]) {
            guard let count = table["total"]?.count ?? table.values.first?.count else { return nil }
            self.protocolName = protocolName
            self.population = population
            self.count = count
            p50 = phases.map { table[$0]?.p50 }
        }
    }

    /// The phases any protocol has, in `Phases.names` order.
    let phases: [String]
    /// By protocol name, then cold before warm; populations without transactions are left out.
    let rows: [Row]

    /// nil when the run holds one protocol or none.
    init?(_ summary: ProbeSummary) {
        guard summary.byProtocol.count > 1 else { return nil }
        let phases = Phases.names.filter { name in summary.byProtocol.values.contains { $0.cold[name] != nil || $0.warm[name] != nil } }
        var rows: [Row] = []
        for (name, tables) in summary.byProtocol.sorted(by: { $0.key < $1.key }) {
            for (population, table) in [("cold", tables.cold), ("warm", tables.warm)] {
                if let row = Row(protocolName: name, population: population, table: table, phases: phases) { rows.append(row) }
            }
        }
        self.phases = phases
        self.rows = rows
    }
}
