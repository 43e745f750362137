import SondeCore
import SondeReport

extension OTLPMetricsBuilder {
    /// Bounds for WebSocket ping round trips and handshakes, seconds (1 ms … 10 s).
    static let pingBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 10]
    /// Bounds for transfer durations (trials and legs), seconds (10 ms … 10 min).
    static let transferBounds: [Double] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

    /// Adds a soak's metrics, every number the report's:
    /// - `sonde.websocket.ping.duration` (histogram, s): each ping RTT of the report's timeline;
    /// - `sonde.websocket.pings` (sum, `{ping}`) by `sonde.websocket.ping.result` (answered, missed,
    ///   unanswered): the soak's ping counts;
    /// - `sonde.websocket.handshake.duration` (histogram, s): each attempt's opening handshake
    ///   (`handshake.totalMs`), by `sonde.websocket.attempt.outcome`;
    /// - `sonde.websocket.connection.attempts` (sum, `{attempt}`) by `sonde.websocket.attempt.outcome`
    ///   (opened, failed) and, for a failed one, `error.type`;
    /// - `sonde.websocket.reconnects` (sum, `{reconnect}`): recoveries (`reconnects.count`);
    /// - `sonde.websocket.disconnects` (sum, `{disconnect}`) by `sonde.websocket.disconnect.cause`;
    /// - the sums of the extensions' parts of a soak (`SoakPartRenderer.otlpSums`, `parts`).
    mutating func addSoak(_ soak: SoakReport, parts: [any SoakPartRenderer] = [], resource: OTLPResource) {
        other(resource) { set in
            for series in soak.timeline {
                for point in series.points where point.count >= 2 {
                    set.record("sonde.websocket.ping.duration", unit: "s",
                               description: "WebSocket ping round-trip time (ping to pong), each ping of the report's timeline.",
                               bounds: Self.pingBounds, point[1] / 1000, [])
                }
            }
            let pings: [(String, Int)] = [("answered", soak.pings.answered), ("missed", soak.pings.missed), ("unanswered", soak.pings.unanswered)]
            for (result, count) in pings {
                set.add("sonde.websocket.pings", unit: "{ping}", description: "WebSocket pings sent by sonde, by result.",
                        Int64(count), [.string("sonde.websocket.ping.result", result)])
            }
            for attempt in soak.attempts {
                let outcome = attempt.openedAt != nil ? "opened" : "failed"
                var attributes: [OTLPAttribute] = [.string("sonde.websocket.attempt.outcome", outcome)]
                if let error = attempt.error, attempt.openedAt == nil { attributes.append(.string("error.type", error.code.rawValue)) }
                set.add("sonde.websocket.connection.attempts", unit: "{attempt}",
                        description: "WebSocket connection attempts (opening handshakes), by outcome.", 1, attributes)
                if let total = attempt.handshake.totalMs {
                    set.record("sonde.websocket.handshake.duration", unit: "s",
                               description: "Duration of the WebSocket opening handshake (DNS, connect, TLS, upgrade).",
                               bounds: Self.pingBounds, total / 1000, [.string("sonde.websocket.attempt.outcome", outcome)])
                }
            }
            set.add("sonde.websocket.reconnects", unit: "{reconnect}",
                    description: "WebSocket recoveries: a connection open again after a disconnect.", Int64(soak.reconnects.count), [])
            for cause in soak.disconnects.byCause.keys.sorted() {
                set.add("sonde.websocket.disconnects", unit: "{disconnect}", description: "WebSocket disconnects, by cause.",
                        Int64(soak.disconnects.byCause[cause] ?? 0), [.string("sonde.websocket.disconnect.cause", cause)])
            }
            for sum in parts.flatMap({ $0.otlpSums(soak) }) {
                set.add(sum.name, unit: sum.unit, description: sum.description, sum.value, sum.attributes.map { .string($0.key, $0.value) })
            }
        }
    }

    /// Adds a resume trial's metrics, every number the report's:
    /// - `sonde.transfer.resume.trials` (sum, `{trial}`) by `sonde.transfer.direction` and
    ///   `sonde.transfer.resume.outcome` (intact, corrupt, failed);
    /// - `sonde.transfer.resume.duration` (histogram, s): the trial's `durationMs`, same attributes;
    /// - `sonde.transfer.resume.legs` (sum, `{request}`) by `sonde.transfer.resume.leg.outcome` and
    ///   `sonde.transfer.interruption.kind` (when the leg was interrupted);
    /// - `sonde.transfer.resume.leg.duration` (histogram, s): each leg's `durationMs`, by leg outcome;
    /// - `sonde.transfer.resume.bytes` (sum, `By`) by `sonde.transfer.bytes.kind`: `kept`
    ///   (bytesTransferred − bytesWasted) and `wasted`;
    /// - `sonde.transfer.resume.latency` (histogram, s): each interruption's `resumeLatencyMs`
    ///   (resume request to its first new byte), by `sonde.transfer.interruption.kind`.
    mutating func addResumeTrial(_ trial: ResumeTrial, resource: OTLPResource) {
        other(resource) { set in
            let outcome = trial.intact ? "intact" : trial.sha256 != nil ? "corrupt" : "failed"
            let attributes: [OTLPAttribute] = [.string("sonde.transfer.direction", trial.direction), .string("sonde.transfer.resume.outcome", outcome)]
            set.add("sonde.transfer.resume.trials", unit: "{trial}", description: "Resume trials (interrupted and resumed transfers), by outcome.",
                    1, attributes)
            set.record("sonde.transfer.resume.duration", unit: "s", description: "Duration of a resume trial, from its first request to its end.",
                       bounds: Self.transferBounds, trial.durationMs / 1000, attributes)
            for leg in trial.legs ?? [] {
                var legAttributes: [OTLPAttribute] = [.string("sonde.transfer.resume.leg.outcome", leg.outcome)]
                if let kind = leg.interruptedBy { legAttributes.append(.string("sonde.transfer.interruption.kind", kind.rawValue)) }
                set.add("sonde.transfer.resume.legs", unit: "{request}", description: "Requests of resume trials (legs), by outcome.",
                        1, legAttributes)
                set.record("sonde.transfer.resume.leg.duration", unit: "s", description: "Duration of one request (leg) of a resume trial.",
                           bounds: Self.transferBounds, leg.durationMs / 1000, [.string("sonde.transfer.resume.leg.outcome", leg.outcome)])
            }
            set.add("sonde.transfer.resume.bytes", unit: "By", description: "Body bytes moved by resume trials: kept, or wasted (thrown away, sent again).",
                    max(0, trial.bytesTransferred - trial.bytesWasted), [.string("sonde.transfer.bytes.kind", "kept")])
            set.add("sonde.transfer.resume.bytes", unit: "By", description: "Body bytes moved by resume trials: kept, or wasted (thrown away, sent again).",
                    trial.bytesWasted, [.string("sonde.transfer.bytes.kind", "wasted")])
            for interruption in trial.interruptions {
                guard let latency = interruption.resumeLatencyMs else { continue }
                set.record("sonde.transfer.resume.latency", unit: "s", description: "From a resume request to its first new body byte.",
                           bounds: Self.pingBounds, latency / 1000, [.string("sonde.transfer.interruption.kind", interruption.kind.rawValue)])
            }
        }
    }
}
