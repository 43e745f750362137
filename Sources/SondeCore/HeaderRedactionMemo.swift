/// A `Redactor` for the per-transaction path: it remembers which header names it found secret, so
/// each distinct name is classified once (one server's responses repeat the same few names), and
/// it hands back the same array, uncopied, when no header is secret.
///
/// Invariant: `redact(_:)` returns exactly what `redactor.redact(headers:)` returns.
public struct HeaderRedactionMemo {
    public let redactor: Redactor
    private var names: [String] = []
    private var secret: [Bool] = []
    /// How many distinct names are remembered; the ones after that are classified every time.
    static let capacity = 64

    public init(redactor: Redactor) {
        self.redactor = redactor
    }

    public mutating func redact(_ headers: [HeaderField]) -> [HeaderField] {
        guard redactor.isEnabled else { return headers }
        var result = headers
        for index in headers.indices where isSecret(headers[index].name) {
            result[index] = HeaderField(name: headers[index].name, value: Redactor.mask)
        }
        return result
    }

    private mutating func isSecret(_ name: String) -> Bool {
        if let known = names.firstIndex(of: name) { return secret[known] }
        let verdict = redactor.isSecret(name: name)
        if names.count < Self.capacity {
            names.append(name)
            secret.append(verdict)
        }
        return verdict
    }
}
