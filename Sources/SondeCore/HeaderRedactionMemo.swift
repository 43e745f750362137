/// A `Redactor` for the per-transaction path: it remembers how it treats each header name, so
/// each distinct name is classified once (one server's responses repeat the same few names), and
/// it hands back the same array, uncopied, when no header is secret.
///
/// Invariant: `redact(_:)` returns exactly what `redactor.redact(headers:)` returns.
public struct HeaderRedactionMemo {
    public let redactor: Redactor
    private var names: [String] = []
    private var treatments: [Redactor.HeaderTreatment] = []
    /// How many distinct names are remembered; the ones after that are classified every time.
    static let capacity = 64

    public init(redactor: Redactor) {
        self.redactor = redactor
    }

    public mutating func redact(_ headers: [HeaderField]) -> [HeaderField] {
        guard redactor.isEnabled else { return headers }
        var result = headers
        for index in headers.indices {
            if let value = redactor.redacted(headers[index].value, as: treatment(headers[index].name)) {
                result[index] = HeaderField(name: headers[index].name, value: value)
            }
        }
        return result
    }

    private mutating func treatment(_ name: String) -> Redactor.HeaderTreatment {
        if let known = names.firstIndex(of: name) { return treatments[known] }
        let verdict = redactor.treatment(ofHeader: name)
        if names.count < Self.capacity {
            names.append(name)
            treatments.append(verdict)
        }
        return verdict
    }
}
