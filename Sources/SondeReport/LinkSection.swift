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
            "<tr><th>\(name)</th>" + [c.packetsIn, c.bytesIn, c.packetsDelivered, c.droppedByLoss, c.droppedByQueue, c.droppedByOutage, c.queuePeakBytes]
                .map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        html += """
        <div class="scroll"><table><thead><tr><th>direction</th><th>packets in</th><th>bytes in</th><th>delivered</th>\
        <th>lost</th><th>queue drops</th><th>outage drops</th><th>queue peak (B)</th></tr></thead>
        <tbody>\(row("down", down))\(row("up", up))</tbody></table></div>
        <p class="muted">Packets still in flight when the link stopped are neither delivered nor dropped.</p></section>

        """
        return html
    }
}
