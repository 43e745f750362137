import SondeCore

/// How a model's fields become a span's attributes, declared once for OTLP: every field with a
/// flat form (`ModelValue.hasScalarForm`) that is present is an attribute named by the rule
/// `sonde.<key in snake_case>` (`libcurlQueue` → `sonde.libcurl_queue`), except the fields other
/// attributes or the span's event already carry (`covered`) and those with a declared name
/// (`names`: the semantic conventions' `network.*` and `tls.*`, sonde's `sonde.connection.*`).
/// An absent value has no attribute. A field added to the model is on every span without a
/// change here or in `OTLPTracesBuilder`.
struct OTLPFieldTable: Sendable {
    /// Fields carried otherwise (the conventions' sizes, the network timing event's dates, …).
    var covered: Set<String>
    /// Attribute names other than the rule's, by key.
    var names: [String: String]

    /// `TransactionMetrics` on a transaction's CLIENT span.
    static let transaction = OTLPFieldTable(
        covered: [
            // http.request.method, url.full, server.*, http.response.status_code (OTLPTransactionFacts)
            "request", "response",
            // the http.client.network_timing event
            "fetchStartDate", "domainLookupStartDate", "domainLookupEndDate", "connectStartDate", "secureConnectionStartDate",
            "secureConnectionEndDate", "connectEndDate", "requestStartDate", "requestEndDate", "responseStartDate", "responseEndDate",
            // http.request.size, http.request.body.size, http.response.size, http.response.body.size
            "countOfRequestHeaderBytesSent", "countOfRequestBodyBytesSent", "countOfResponseHeaderBytesReceived",
            "countOfResponseBodyBytesReceived",
            // tls.protocol.name and tls.protocol.version (libcurl's "TLSv1.3" split)
            "negotiatedTLSProtocolVersion",
        ],
        names: [
            "networkProtocolName": "sonde.protocol",
            "isReusedConnection": "sonde.connection.reused",
            "isProxyConnection": "sonde.connection.proxy",
            "connectionID": "sonde.connection.id",
            "altSvcFailure": "sonde.alt_svc.failure",
            "remoteAddress": "network.peer.address",
            "remotePort": "network.peer.port",
            "localAddress": "network.local.address",
            "localPort": "network.local.port",
            "negotiatedTLSCipherSuite": "tls.cipher",
            "tlsSessionReused": "tls.resumed",
            "countOfResponseBodyBytesAfterDecoding": "sonde.response.body.decoded_size",
        ])

    /// Each field of `Model`'s walk, in order: its attribute's name, or nil when it is covered
    /// or has no flat form.
    func attributeNames<Model: FieldModel>(of model: Model.Type) -> [String?] {
        FieldList.of(model).map { field in
            guard field.hasScalarForm, !covered.contains(field.key) else { return nil }
            return names[field.key] ?? "sonde." + Self.snakeCase(field.key)
        }
    }

    /// `libcurlQueue` → `libcurl_queue`, `http3Fallback` → `http3_fallback`, `peerTLSName` →
    /// `peer_tls_name` (a run of capitals is one word).
    static func snakeCase(_ key: String) -> String {
        let characters = Array(key)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if !previous.isUppercase || nextIsLower { result.append("_") }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }
}
