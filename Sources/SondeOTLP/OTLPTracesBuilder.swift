import SondeCore

/// Makes a run's spans and writes them as `ExportTraceServiceRequest`s:
///
/// - the run: a root span `sonde <command>` (INTERNAL), its id the one `--traceparent` sent;
/// - each task: a span `sonde.task` (INTERNAL), child of the run, from the task's start for its
///   duration, with `url.full`, `sonde.task.iteration`, `sonde.task.redirect_count` and, when it
///   failed, `error.type` and status ERROR;
/// - each transaction (redirect hop): a CLIENT span named after the method (`HTTP` for one the
///   conventions do not know: `_OTHER`), child of its task, with the HTTP conventions'
///   attributes (`url.full` without credentials), sonde's phases as `sonde.phase.<name>` (milliseconds,
///   the very numbers of report.json), every other field of the transaction by `OTLPFieldTable`
///   (the connection: `sonde.connection.reused`, `sonde.connection.id`; TLS, Alt-Svc and HTTP/3
///   fallback, `sonde.queue`, `sonde.libcurl_queue`, …), and one `http.client.network_timing`
///   event at the hop's `fetchStartDate` whose `http.*_time` attributes are milliseconds since it.
///
/// Spans are handed out in batches (`takeBatch`) so that a long run is never held whole.
struct OTLPTracesBuilder {
    let context: OTLPTraceContext
    /// The methods the conventions call known (`OTLPSettings.knownMethods`).
    let knownMethods: Set<String>
    private var spans: [OTLPResource: [OTLPSpan]] = [:]
    private var order: [OTLPResource] = []
    private(set) var pendingSpans = 0

    init(context: OTLPTraceContext, knownMethods: Set<String> = OTLPSettings.defaultKnownMethods) {
        self.context = context
        self.knownMethods = knownMethods
    }

    /// The transaction's field attributes, one per field of its walk (`OTLPFieldTable.transaction`).
    static let transactionAttributeNames = OTLPFieldTable.transaction.attributeNames(of: TransactionMetrics.self)
    /// The field attributes the network timing event repeats (the connection and how it came to be).
    static let networkTimingFieldAttributes: Set<String> = ["sonde.connection.reused", "sonde.connection.id", "sonde.alt_svc", "sonde.http3_fallback"]

    static func nanos(_ timestamp: Timestamp) -> UInt64 { UInt64(clamping: timestamp.microsecondsSince1970) &* 1000 }

    static func nanos(_ timestamp: Timestamp, plusMilliseconds milliseconds: Double) -> UInt64 {
        let micros = milliseconds.isFinite ? Int64(clamping: Int((milliseconds * 1000).rounded().clamped(to: -1e15...1e15))) : 0
        return nanos(timestamp.adding(microseconds: micros))
    }

    mutating func appendSpan(_ span: OTLPSpan, to resource: OTLPResource) {
        if spans[resource] == nil {
            spans[resource] = []
            order.append(resource)
        }
        spans[resource]?.append(span)
        pendingSpans += 1
    }

    /// Adds the run's root span.
    mutating func addRun(_ run: RunInfo, resource: OTLPResource) {
        let start = Self.nanos(run.startedAt)
        var span = OTLPSpan(traceID: context.traceID, spanID: context.rootSpanID, parentSpanID: nil, name: "sonde \(run.command)",
                            kind: .internal, startNanos: start, endNanos: run.finishedAt.map(Self.nanos) ?? start)
        span.attributes = [.string("sonde.run.id", run.id), .string("sonde.run.status", run.status.rawValue)]
        if run.status == .error { span.status = .error }
        appendSpan(span, to: resource)
    }

    /// Adds a task's span and one span per transaction.
    mutating func add(_ task: ProbeTask, resource: OTLPResource) {
        let taskID = OTLPTraceContext.randomID(count: 8)
        let start = Self.nanos(task.taskInterval.start)
        var span = OTLPSpan(traceID: context.traceID, spanID: taskID, parentSpanID: context.rootSpanID, name: "sonde.task", kind: .internal,
                            startNanos: start, endNanos: Self.nanos(task.taskInterval.start, plusMilliseconds: task.taskInterval.durationMs))
        span.attributes = [.urlFull(task.url), .int("sonde.task.iteration", task.iteration),
                           .int("sonde.task.redirect_count", task.redirectCount), .double("sonde.task.duration", task.taskInterval.durationMs)]
        if let link = task.link { span.attributes.append(.string("sonde.link", link)) }
        if let error = task.error {
            span.attributes.append(.string("error.type", error.code.rawValue))
            span.status = .error
            span.statusMessage = error.message
        }
        appendSpan(span, to: resource)
        let count = task.transactionMetrics.count
        for (index, transaction) in task.transactionMetrics.enumerated() {
            appendSpan(transactionSpan(transaction, hop: index, parent: taskID, taskStart: task.taskInterval.start,
                                   taskError: index == count - 1 ? task.error : nil), to: resource)
        }
    }

    private func transactionSpan(_ transaction: TransactionMetrics, hop: Int, parent: [UInt8], taskStart: Timestamp,
                                 taskError: TaskError?) -> OTLPSpan {
        let facts = OTLPTransactionFacts(transaction, taskError: taskError, knownMethods: knownMethods)
        let fetchStart = transaction.fetchStartDate ?? taskStart
        let start = Self.nanos(fetchStart)
        let end = transaction.responseEndDate.map(Self.nanos)
            ?? Self.nanos(fetchStart, plusMilliseconds: (transaction.queue ?? 0) + (transaction.phases.total ?? 0))
        var span = OTLPSpan(traceID: context.traceID, spanID: OTLPTraceContext.randomID(count: 8), parentSpanID: parent,
                            name: facts.spanName, kind: .client, startNanos: start, endNanos: end)
        var attributes = facts.stableAttributes
        if let original = facts.originalMethod { attributes.append(.string("http.request.method_original", original)) }
        attributes.append(.urlFull(transaction.request.url))
        if hop > 0 { attributes.append(.int("http.request.resend_count", hop)) }
        if let version = transaction.negotiatedTLSProtocolVersion {
            // libcurl's "TLSv1.3" as the conventions' tls.protocol.name/version.
            let lower = version.lowercased()
            if lower.hasPrefix("tlsv") {
                attributes.append(.string("tls.protocol.name", "tls"))
                attributes.append(.string("tls.protocol.version", String(version.dropFirst(4))))
            } else {
                attributes.append(.string("tls.protocol.version", version))
            }
        }
        for phase in Phase.allCases {
            if let milliseconds = transaction.phases[phase] { attributes.append(.double("sonde.phase.\(phase.name)", milliseconds)) }
        }
        // The conventions' sizes: whole messages (request or status line, headers, body) and bodies.
        // (Header bytes alone have no attribute: `http.request.header.<key>` names headers.)
        let requestHeader = transaction.countOfRequestHeaderBytesSent, requestBody = transaction.countOfRequestBodyBytesSent
        let responseHeader = transaction.countOfResponseHeaderBytesReceived, responseBody = transaction.countOfResponseBodyBytesReceived
        attributes.append(.int("http.request.size", Int(clamping: requestHeader.addingReportingOverflow(requestBody).partialValue)))
        attributes.append(.int("http.request.body.size", Int(clamping: requestBody)))
        attributes.append(.int("http.response.size", Int(clamping: responseHeader.addingReportingOverflow(responseBody).partialValue)))
        attributes.append(.int("http.response.body.size", Int(clamping: responseBody)))
        // Every other field of the transaction, by the one table (network.*, tls.cipher, sonde.connection.*, …).
        let fieldAttributes = OTLPFieldAttributes.of(transaction, names: Self.transactionAttributeNames)
        attributes += fieldAttributes
        span.attributes = attributes
        if let errorType = facts.errorType {
            span.status = .error
            span.statusMessage = taskError?.message ?? "HTTP \(errorType)"
        }
        span.events = [networkTiming(transaction, at: fetchStart, facts: facts, fieldAttributes: fieldAttributes)]
        return span
    }

    /// The `http.client.network_timing` event of one hop: each of URLSessionTaskTransactionMetrics'
    /// dates that happened, as milliseconds after `fetchStartDate` (the event's time).
    private func networkTiming(_ transaction: TransactionMetrics, at fetchStart: Timestamp, facts: OTLPTransactionFacts,
                               fieldAttributes: [OTLPAttribute]) -> OTLPSpan.Event {
        let dates: [(String, Timestamp?)] = [
            ("http.call.start_time", fetchStart),
            ("http.dns.start_time", transaction.domainLookupStartDate), ("http.dns.end_time", transaction.domainLookupEndDate),
            ("http.connect.start_time", transaction.connectStartDate), ("http.connect.end_time", transaction.connectEndDate),
            ("http.secure_connect.start_time", transaction.secureConnectionStartDate),
            ("http.secure_connect.end_time", transaction.secureConnectionEndDate),
            ("http.request.start_time", transaction.requestStartDate), ("http.request.end_time", transaction.requestEndDate),
            ("http.response.start_time", transaction.responseStartDate), ("http.response.end_time", transaction.responseEndDate),
            ("http.call.end_time", transaction.responseEndDate),
        ]
        var attributes: [OTLPAttribute] = []
        for (name, date) in dates {
            guard let date else { continue }
            attributes.append(.double(name, Double(date.microsecondsSince1970 - fetchStart.microsecondsSince1970) / 1000))
        }
        if let version = facts.protocolVersion {
            attributes.append(.string("network.protocol.name", "http"))
            attributes.append(.string("network.protocol.version", version))
        }
        attributes += fieldAttributes.filter { Self.networkTimingFieldAttributes.contains($0.key) }
        return OTLPSpan.Event(timeNanos: Self.nanos(fetchStart), name: "http.client.network_timing", attributes: attributes)
    }

    /// The spans added since the last batch as an `ExportTraceServiceRequest` (resource_spans = 1;
    /// ResourceSpans: resource = 1, scope_spans = 2; ScopeSpans: scope = 1, spans = 2), and empties
    /// the builder; nil when nothing is pending.
    mutating func takeBatch() -> [UInt8]? {
        guard pendingSpans > 0 else { return nil }
        var writer = ProtobufWriter()
        for resource in order {
            guard let own = spans[resource], !own.isEmpty else { continue }
            writer.message(1) { resourceSpans in
                resource.write(1, into: &resourceSpans)
                resourceSpans.message(2) { scope in
                    OTLPResource.writeScope(1, into: &scope)
                    for span in own { scope.message(2) { span.write(into: &$0) } }
                }
            }
        }
        spans = [:]
        order = []
        pendingSpans = 0
        return writer.bytes
    }
}

private extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
