import SondeCore

/// How a model's fields become sonde's own members of a HAR entry, declared once for HAR: every
/// field with a flat form (`ModelValue.hasScalarForm`) is written as `"_<key>": value` (`null`
/// when absent; a field whose rule `omitsNil` is left out when absent), except the fields HAR's
/// standard members already carry (`standard`), those given another name (`renamed`) and those
/// whose absence HAR writes as a value (`absent`). A field added to the model is in every entry
/// without a change here or in `HARWriter`.
public struct HARFieldTable: Sendable {
    /// Fields that HAR's own members carry (`request`, `timings`, `serverIPAddress`, …): not repeated.
    public var standard: Set<String>
    /// Member names other than `_<key>`, by key.
    public var renamed: [String: String]
    /// What an absent value is written as instead of `null`, by key.
    public var absent: [String: ModelScalar]

    public init(standard: Set<String> = [], renamed: [String: String] = [:], absent: [String: ModelScalar] = [:]) {
        self.standard = standard
        self.renamed = renamed
        self.absent = absent
    }

    /// `TransactionMetrics` in a HAR entry (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/).
    public static let transaction = HARFieldTable(
        standard: [
            // entry.request, entry.response, their sizes and content
            "request", "response", "countOfRequestHeaderBytesSent", "countOfRequestBodyBytesSent",
            "countOfResponseHeaderBytesReceived", "countOfResponseBodyBytesReceived", "countOfResponseBodyBytesAfterDecoding",
            // startedDateTime, time and timings (blocked is `queue`)
            "fetchStartDate", "domainLookupStartDate", "domainLookupEndDate", "connectStartDate", "secureConnectionStartDate",
            "secureConnectionEndDate", "connectEndDate", "requestStartDate", "requestEndDate", "responseStartDate",
            "responseEndDate", "queue", "phases",
            // serverIPAddress, connection
            "remoteAddress", "connectionID",
        ],
        renamed: ["negotiatedTLSProtocolVersion": "_tlsProtocolVersion", "negotiatedTLSCipherSuite": "_tlsCipherSuite"],
        // libcurl's own queue time, -1 when not measured (libcurl before 8.6), as HAR's timings say "not applicable".
        absent: ["libcurlQueue": .double(-1)])

    /// One field's member: its name and its value when absent (nil: `null`).
    struct Member: Sendable {
        var name: String
        var absent: ModelScalar?
    }

    /// Each field of `Model`'s walk, in order: its member, or nil when HAR leaves it to a standard
    /// member or it has no flat form.
    func members<Model: FieldModel>(of model: Model.Type) -> [Member?] {
        FieldList.of(model).map { field in
            guard field.hasScalarForm, !standard.contains(field.key) else { return nil }
            return Member(name: renamed[field.key] ?? "_" + field.key, absent: absent[field.key])
        }
    }
}
