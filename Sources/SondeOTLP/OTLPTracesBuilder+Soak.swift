import SondeCore

extension OTLPTracesBuilder {
    /// The most ping events one connection attempt's span carries (the report's timeline is
    /// bounded too); further pings are counted in `sonde.ws.ping.events_dropped`.
    static let maxPingEvents = 1000

    /// Adds a soak's spans: `sonde.soak` (INTERNAL, child of the run) for the soak, and a CLIENT
    /// span `sonde.ws.connection` per connection attempt (from its start to its close, or the
    /// soak's end), with the opening handshake's phases (`sonde.phase.dns`, `connect`, `tls`,
    /// `upgrade`, `total`, ms), `http.response.status_code`, the close (`sonde.ws.close_code`,
    /// `sonde.ws.disconnect_cause`), the ping counts, `error.type` and status ERROR for a failed
    /// attempt, and one `sonde.ws.ping` event per answered ping of the report's timeline that falls
    /// in the attempt (`sonde.ws.ping.rtt`, ms).
    mutating func addSoak(_ soak: SoakReport, resource: OTLPResource) {
        let soakID = OTLPTraceContext.randomID(count: 8)
        let soakEnd = soak.finishedAt ?? soak.attempts.compactMap(\.closedAt).max() ?? soak.startedAt
        var span = OTLPSpan(traceID: context.traceID, spanID: soakID, parentSpanID: context.rootSpanID, name: "sonde.soak", kind: .internal,
                            startNanos: Self.nanos(soak.startedAt), endNanos: Self.nanos(soakEnd))
        span.attributes = [.urlFull(soak.url), .int("sonde.soak.connections", soak.connections),
                           .int("sonde.soak.attempts", soak.attempts.count), .bool("sonde.soak.passed", soak.passed)]
        if !soak.passed { span.status = .error }
        appendSpan(span, to: resource)
        for attempt in soak.attempts {
            appendSpan(attemptSpan(attempt, soak: soak, parent: soakID, soakEnd: soakEnd), to: resource)
        }
    }

    private func attemptSpan(_ attempt: SoakAttempt, soak: SoakReport, parent: [UInt8], soakEnd: Timestamp) -> OTLPSpan {
        let end = attempt.closedAt ?? soakEnd
        let spanID = attempt.spanId.flatMap(OTLPTraceContext.spanID(hex:)) ?? OTLPTraceContext.randomID(count: 8)
        var span = OTLPSpan(traceID: context.traceID, spanID: spanID, parentSpanID: parent,
                            name: "sonde.ws.connection", kind: .client, startNanos: Self.nanos(attempt.startedAt), endNanos: Self.nanos(end))
        var attributes: [OTLPAttribute] = [.urlFull(soak.url), .int("sonde.ws.connection", attempt.connection),
                                           .int("sonde.ws.attempt", attempt.attempt)]
        let handshake = attempt.handshake
        let phases: [(String, Double?)] = [("dns", handshake.dnsMs), ("connect", handshake.connectMs), ("tls", handshake.tlsMs),
                                           ("upgrade", handshake.upgradeMs), ("total", handshake.totalMs)]
        for (name, value) in phases { if let value { attributes.append(.double("sonde.phase.\(name)", value)) } }
        if let status = handshake.statusCode { attributes.append(.int("http.response.status_code", status)) }
        if let address = handshake.remoteAddress { attributes.append(.string("network.peer.address", address)) }
        if let port = handshake.remotePort { attributes.append(.int("network.peer.port", port)) }
        if let code = attempt.closeCode { attributes.append(.int("sonde.ws.close_code", code)) }
        if let cause = attempt.cause { attributes.append(.string("sonde.ws.disconnect_cause", cause.rawValue)) }
        if let backoff = attempt.backoffMs { attributes.append(.double("sonde.ws.backoff", backoff)) }
        attributes += [.int("sonde.ws.pings.sent", attempt.pings.sent), .int("sonde.ws.pings.answered", attempt.pings.answered),
                       .int("sonde.ws.pings.missed", attempt.pings.missed)]
        if let error = attempt.error {
            attributes.append(.string("error.type", error.code.rawValue))
            span.status = .error
            span.statusMessage = error.message
        }
        // The timeline's pings of this connection inside this attempt's open interval.
        if let opened = attempt.openedAt {
            let from = Double(opened.microsecondsSince1970 - soak.startedAt.microsecondsSince1970) / 1000
            let to = Double(end.microsecondsSince1970 - soak.startedAt.microsecondsSince1970) / 1000
            var dropped = 0
            for series in soak.timeline where series.connection == attempt.connection {
                for point in series.points where point.count >= 2 && point[0] >= from && point[0] <= to {
                    guard span.events.count < Self.maxPingEvents else {
                        dropped += 1
                        continue
                    }
                    span.events.append(OTLPSpan.Event(timeNanos: Self.nanos(soak.startedAt, plusMilliseconds: point[0]), name: "sonde.ws.ping",
                                                      attributes: [.double("sonde.ws.ping.rtt", point[1])]))
                }
            }
            if dropped > 0 { attributes.append(.int("sonde.ws.ping.events_dropped", dropped)) }
        }
        span.attributes = attributes
        return span
    }
}
