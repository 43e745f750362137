import SondeCore

extension OTLPTracesBuilder {
    /// Adds a resume trial's spans: `sonde.resume.trial` (INTERNAL, child of the run) from the
    /// trial's start for its duration, and a CLIENT span per leg (one request of the trial, named
    /// after its HTTP method), child of the trial, from the leg's start for its duration.
    ///
    /// A leg's span id is the one the trial recorded (`ResumeLeg.spanId`: the parent its
    /// `traceparent` carried); a leg without one gets a random id. Numbers are report.json's:
    /// milliseconds and bytes as the report holds them. A trial written before sonde recorded its
    /// start (`startedAt` nil) starts at the run's start.
    mutating func addResumeTrial(_ trial: ResumeTrial, runStart: Timestamp, resource: OTLPResource) {
        let trialID = OTLPTraceContext.randomID(count: 8)
        let start = trial.startedAt ?? runStart
        var span = OTLPSpan(traceID: context.traceID, spanID: trialID, parentSpanID: context.rootSpanID, name: "sonde.resume.trial",
                            kind: .internal, startNanos: Self.nanos(start),
                            endNanos: Self.nanos(start, plusMilliseconds: trial.durationMs))
        var attributes: [OTLPAttribute] = [
            .urlFull(trial.url), .int("sonde.resume.trial", trial.trial), .string("sonde.resume.direction", trial.direction),
            .string("sonde.resume.protocol", trial.protocol), .int("sonde.resume.interruptions", trial.interruptions.count),
            .int("sonde.resume.legs", trial.legs?.count ?? 0), .int("sonde.resume.retries", trial.retries.count),
            .int("sonde.resume.bytes_transferred", Int(clamping: trial.bytesTransferred)),
            .int("sonde.resume.bytes_wasted", Int(clamping: trial.bytesWasted)), .bool("sonde.resume.intact", trial.intact),
            .double("sonde.resume.duration", trial.durationMs),
        ]
        if let length = trial.length { attributes.append(.int("sonde.resume.length", Int(clamping: length))) }
        if let goodput = trial.goodputMbps { attributes.append(.double("sonde.resume.goodput", goodput)) }
        if let error = trial.error {
            attributes.append(.string("error.type", error.code.rawValue))
            span.status = .error
            span.statusMessage = error.message
        }
        span.attributes = attributes
        appendSpan(span, to: resource)
        for leg in trial.legs ?? [] {
            appendSpan(legSpan(leg, trial: trial, start: start, parent: trialID), to: resource)
        }
    }

    private func legSpan(_ leg: ResumeLeg, trial: ResumeTrial, start: Timestamp, parent: [UInt8]) -> OTLPSpan {
        let method = Self.method(of: leg, trial: trial)
        var span = OTLPSpan(traceID: context.traceID, spanID: leg.spanId.flatMap(OTLPTraceContext.spanID(hex:)) ?? OTLPTraceContext.randomID(count: 8),
                            parentSpanID: parent, name: method, kind: .client,
                            startNanos: Self.nanos(start, plusMilliseconds: leg.startMs),
                            endNanos: Self.nanos(start, plusMilliseconds: leg.startMs + leg.durationMs))
        var attributes: [OTLPAttribute] = [
            .urlFull(trial.url), .string("http.request.method", method), .int("sonde.resume.trial", trial.trial),
            .int("sonde.resume.leg", leg.leg), .string("sonde.resume.leg.request", leg.request),
            .int("sonde.resume.leg.from_byte", Int(clamping: leg.fromByte)), .int("sonde.resume.leg.bytes", Int(clamping: leg.bytes)),
            .double("sonde.resume.leg.duration", leg.durationMs), .string("sonde.resume.leg.outcome", leg.outcome),
        ]
        if leg.request == "get", leg.fromByte > 0 { attributes.append(.string("sonde.resume.leg.range", "bytes=\(leg.fromByte)-")) }
        if let status = leg.status { attributes.append(.int("http.response.status_code", status)) }
        if let kind = leg.interruptedBy { attributes.append(.string("sonde.resume.leg.interrupted_by", kind.rawValue)) }
        if let answer = leg.answeredWith { attributes.append(.string("sonde.resume.leg.answered_with", answer)) }
        if let first = leg.firstByteMs { attributes.append(.double("sonde.resume.leg.first_byte", first)) }
        if let error = leg.error {
            attributes.append(.string("error.type", error.code.rawValue))
            if leg.outcome == "failed" || leg.outcome == "retried" {
                span.status = .error
                span.statusMessage = error.message
            }
        }
        span.attributes = attributes
        return span
    }

    /// The leg's HTTP method: GET for a download, POST for an upload's creation, PATCH for an
    /// append (both tus and the IETF draft append with PATCH).
    static func method(of leg: ResumeLeg, trial: ResumeTrial) -> String {
        switch leg.request {
        case "create": return "POST"
        case "append": return "PATCH"
        default: return "GET"
        }
    }
}
