import SondeCore

/// The HTML of an emulated link (`LinkUse`): its conditions in one line and, once it stopped, the
/// emulator's counters per direction. Shown at the top of a single-check run and in each check's
/// section. Every string is escaped.
enum LinkSection {
    static func render(_ link: LinkUse) -> String {
        var html = "<section class=\"link\"><h2>Emulated link <code>\(htmlEscape(link.conditions.profile))</code></h2>\n"
        html += "<p>\(htmlEscape(link.conditions.summary)) · seed \(link.seed) · <span class=\"muted mono\">\(htmlEscape(link.conditions.spec))</span></p>\n"
        if let problem = link.problem { html += "<p class=\"warn\">The emulator stopped early: \(htmlEscape(problem))</p>\n" }
        guard let down = link.down, let up = link.up else {
            return html + "<p class=\"muted\">No counters: the run ended before the link stopped.</p></section>\n"
        }
        func row(_ name: String, _ c: LinkCounters) -> String {
            "<tr><th>\(name)</th>" + [c.packetsIn, c.bytesIn, c.packetsDelivered, c.droppedByLoss, c.droppedByQueue, c.droppedByOutage,
                                        c.droppedByTUNQueue, c.droppedByTUNWrite, c.queuePeakBytes]
                .map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        html += """
        <div class="scroll"><table><thead><tr><th>direction</th><th>packets in</th><th>bytes in</th><th>delivered</th>\
        <th>lost</th><th>queue drops</th><th>outage drops</th><th>TUN queue drops</th><th>TUN write drops</th><th>queue peak (B)</th></tr></thead>
        <tbody>\(row("down", down))\(row("up", up))</tbody></table></div>
        <p class="muted">Packets still in flight when the link stopped are neither delivered nor dropped. \
        TUN queue drops: the kernel dropped them before the emulator read them (it fell behind the sender; not the profile's doing); \
        TUN write drops: lost on the way out of the emulator.</p>

        """
        return html + connections(link.connections ?? []) + "</section>\n"
    }

    /// The most connections listed; the rest are counted in a line.
    static let shownConnections = 30

    /// Each connection's packets in and dropped per direction (the first `shownConnections`).
    private static func connections(_ connections: [LinkConnectionCounters]) -> String {
        guard !connections.isEmpty else { return "" }
        var rows = ""
        for c in connections.prefix(shownConnections) {
            let far = c.protocolName == "other" ? "other flows" : "\(c.remoteAddress):\(c.remotePort)" + (c.service.map { " (\($0))" } ?? "")
            rows += "<tr><td>\(htmlEscape(c.protocolName))</td><td>\(c.localPort)</td><td class=\"mono\">\(htmlEscape(far))</td>"
                + [c.down.packetsIn, c.down.dropped, c.up.packetsIn, c.up.dropped].map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        let more = connections.count > shownConnections ? "<p class=\"muted\">\(connections.count - shownConnections) more in report.json.</p>\n" : ""
        return """
        <details><summary>Per connection (\(connections.count))</summary><div class="scroll"><table><thead><tr><th>protocol</th><th>local port</th>\
        <th>far end</th><th>down packets</th><th>down dropped</th><th>up packets</th><th>up dropped</th></tr></thead>
        <tbody>\(rows)</tbody></table></div>\(more)</details>

        """
    }
}
