import SondeCore

/// The HTML section of packet evidence: per capture, what was read (and whether completely),
/// then one row per TCP connection with its handshake, initial RTT and Wireshark-style counters,
/// and one row per QUIC connection with what its cleartext headers show.
/// Bounded: at most `rowLimit` connections of each kind per capture are drawn (report.json has all).
enum CaptureSection {
    static let rowLimit = 500

    static func render(_ captures: [CaptureReport]) -> String {
        guard !captures.isEmpty else { return "" }
        var html = "<section><h2>Packet evidence</h2>\n"
        for capture in captures {
            html += "<p><code>\(htmlEscape(capture.file))</code> · \(htmlEscape(capture.linkType)) · \(capture.packets) packets, "
                + "\(capture.flows.count) TCP connections, "
                + (capture.quicFlows.isEmpty ? "" : "\(capture.quicFlows.count) QUIC connections, ")
                + "\(capture.otherPackets) other packets"
                + (capture.interface.map { " · interface " + htmlEscape($0) } ?? "")
                + (capture.filter.map { " · filter <code>" + htmlEscape($0) + "</code>" } ?? "")
                + (capture.drops.map { " · \($0) dropped by pcap" } ?? "") + "</p>\n"
            if !capture.problems.isEmpty {
                html += "<p class=\"warn\">\(capture.complete ? "Problems" : "Partial analysis"): "
                    + capture.problems.map(htmlEscape).joined(separator: "; ") + "</p>\n"
            }
            if let omitted = capture.omitted {
                html += "<p class=\"warn\">\(htmlEscape(omitted.summary)) (report.json: <code>omitted</code>).</p>\n"
            }
            var rows = ""
            for flow in capture.flows.prefix(rowLimit) {
                let up = flow.clientToServer, down = flow.serverToClient
                func pair(_ a: Int, _ b: Int) -> String {
                    let text = "\(a) / \(b)"
                    return a + b > 0 ? "<td class=\"fail\">\(text)</td>" : "<td>\(text)</td>"
                }
                rows += "<tr><td class=\"tuple\">\(htmlEscape(flow.tuple))</td>"
                    + "<td>\(flow.handshake.complete ? "yes" : "no")</td>"
                    + "<td>\(flow.initialRttMs.map(formatMs) ?? "–")</td>"
                    + "<td>\(up.segments) / \(down.segments)</td>"
                    + "<td>\(formatBytes(up.payloadBytes)) / \(formatBytes(down.payloadBytes))</td>"
                    + pair(up.retransmissions, down.retransmissions)
                    + pair(up.duplicateAcks, down.duplicateAcks)
                    + pair(up.outOfOrder, down.outOfOrder)
                    + pair(up.zeroWindows, down.zeroWindows)
                    + pair(up.windowFull, down.windowFull)
                    + "<td>\(flow.resets)</td><td>\(flow.fins)</td><td>\(htmlEscape(flow.closedBy ?? "–"))</td>"
                    + "<td class=\"text\(flow.tls?.problem == nil ? "" : " warn")\">\(htmlEscape(flow.tls.map(Self.tlsSummary) ?? "–"))</td></tr>\n"
            }
            let more = capture.flows.count > rowLimit
                ? "<p class=\"muted\">The first \(rowLimit) of \(capture.flows.count) connections; report.json has all.</p>" : ""
            // A capture of QUIC connections only gets no empty TCP table.
            let tcpTable = """
            \(more)<div class="scroll"><table class="wide"><thead><tr><th>connection (client &gt; server)</th><th>handshake</th><th>initial RTT ms</th>\
            <th>segments ↑/↓</th><th>payload ↑/↓</th><th>retrans&shy;missions ↑/↓</th><th>dup ACKs ↑/↓</th><th>out of order ↑/↓</th>\
            <th>zero windows ↑/↓</th><th>window full ↑/↓</th><th>RST</th><th>FIN</th><th>closed by</th><th class="text">TLS</th></tr></thead><tbody>
            \(rows)</tbody></table></div>

            """
            if !capture.flows.isEmpty || capture.quicFlows.isEmpty { html += tcpTable }
            html += quicTable(capture.quicFlows)
        }
        return html + "<p class=\"muted\">Counted with Wireshark's TCP analysis definitions; QUIC from the cleartext headers "
            + "(initial RTT: the client's first Initial → the server's first datagram; handshake: → the client's first 1-RTT packet); "
            + "↑ client to server, ↓ server to client.</p></section>\n"
    }

    /// One row per QUIC connection (at most `rowLimit`): version, the wire's round trip (first
    /// client Initial → first server datagram) and handshake (→ the client's first 1-RTT packet),
    /// datagrams, bytes and packets by type ↑/↓; "" without QUIC connections.
    static func quicTable(_ flows: [QUICFlowEvidence]) -> String {
        guard !flows.isEmpty else { return "" }
        var rows = ""
        for flow in flows.prefix(rowLimit) {
            let up = flow.clientToServer, down = flow.serverToClient
            func pair(_ a: Int, _ b: Int) -> String { "<td>\(a) / \(b)</td>" }
            rows += "<tr><td class=\"tuple\">\(htmlEscape(flow.tuple))</td>"
                + "<td>\(htmlEscape(flow.versionName ?? flow.version ?? "–"))</td>"
                + "<td>\(flow.initialRttMs.map(formatMs) ?? "–")</td><td>\(flow.handshakeMs.map(formatMs) ?? "–")</td>"
                + pair(up.datagrams, down.datagrams)
                + "<td>\(formatBytes(up.bytes)) / \(formatBytes(down.bytes))</td>"
                + pair(up.initialPackets, down.initialPackets) + pair(up.handshakePackets, down.handshakePackets)
                + pair(up.zeroRttPackets, down.zeroRttPackets) + pair(up.shortHeaderPackets, down.shortHeaderPackets)
                + pair(up.retryPackets + up.versionNegotiationPackets, down.retryPackets + down.versionNegotiationPackets)
                + "<td class=\"text\(flow.problems.isEmpty ? "" : " warn")\">\(htmlEscape(flow.problems.isEmpty ? "–" : flow.problems.joined(separator: "; ")))</td></tr>\n"
        }
        let more = flows.count > rowLimit
            ? "<p class=\"muted\">The first \(rowLimit) of \(flows.count) QUIC connections; report.json has all.</p>" : ""
        return """
        \(more)<div class="scroll"><table class="wide"><thead><tr><th>QUIC connection (client &gt; server)</th><th>version</th>\
        <th>initial RTT ms</th><th>handshake ms</th><th>datagrams ↑/↓</th><th>bytes ↑/↓</th><th>Initial ↑/↓</th><th>Handshake ↑/↓</th>\
        <th>0-RTT ↑/↓</th><th>1-RTT ↑/↓</th><th>Retry, VN ↑/↓</th><th class="text">problems</th></tr></thead><tbody>
        \(rows)</tbody></table></div>

        """
    }

    /// "TLSv1.3 localhost h2 · 5.26 ms" and what went wrong: one cell or one terminal column.
    static func tlsSummary(_ tls: FlowEvidence.TLS) -> String {
        var parts = [tls.version ?? "no ServerHello"]
        if let name = tls.serverName { parts.append(name) }
        if let alpn = tls.alpn { parts.append(alpn) }
        var text = parts.joined(separator: " ")
        if let ms = tls.handshakeMs { text += " · \(formatMs(ms)) ms" }
        if tls.helloRetryRequest { text += " · HelloRetryRequest" }
        if tls.alerts > 0 { text += " · \(tls.alerts) alert\(tls.alerts == 1 ? "" : "s")" }
        if let problem = tls.problem { text += " · " + problem }
        return text
    }

    private static func formatBytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1 << 20 { return formatMs(Double(count) / 1024) + " KiB" }
        return formatMs(Double(count) / 1_048_576) + " MiB"
    }
}
