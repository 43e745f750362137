import SondeCore

extension HTTPObservation {
    /// Each measured request's cold and warm cost (`AuditRequestCost`): the GET (cold, then the
    /// same GET through the pool it left), the revalidation, and the move to HTTP/3 (the new
    /// connection to the Alt-Svc alternative, over QUIC when it works). Request lines redacted as findings are.
    var requestCosts: [AuditRequestCost] {
        var costs: [AuditRequestCost] = []
        if let first {
            costs.append(AuditRequestCost(name: "get", request: Self.line(first), cold: AuditConnectionCost(first),
                                          warm: second.map(AuditConnectionCost.init)))
        }
        if let conditional {
            costs.append(AuditRequestCost(name: "revalidation", request: Self.line(conditional), cold: AuditConnectionCost(conditional),
                                          warm: nil))
        }
        // The second of the pair is the one that went to the alternative (over QUIC when it works).
        if let h3, let moved = h3.last {
            costs.append(AuditRequestCost(name: "h3", request: Self.line(moved), cold: AuditConnectionCost(moved), warm: nil))
        }
        return costs
    }

    /// "GET <redacted URL>" of a task's first hop.
    private static func line(_ task: ProbeTask) -> String {
        let method = task.transactionMetrics.first?.request.method ?? "GET"
        return method + " " + HTTPEvidence.redactor.redact(url: task.transactionMetrics.first?.request.url ?? task.url)
    }
}
