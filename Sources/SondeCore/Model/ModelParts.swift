/// The parts of a model that a kind extension owns (a soak's subscription figures; see
/// docs/architecture.md, "Adding a kind extension"): each a JSON value, kept as its bytes under its own key of the model's object,
/// which SondeCore neither reads nor judges (the extension does, `SoakPart`).
///
/// A model visits its parts after its own fields (`FieldVisitor.visitParts`): the writers write
/// each part after the fields, keys sorted; the readers keep every member whose key no field
/// names. So a reader keeps any unknown key as a part: whoever builds a report from read
/// values keeps the parts it knows (`SoakReportBuilder` keeps its `SoakPart`s' keys only).
public struct ModelParts: Sendable, Equatable {
    /// Each part's JSON bytes, by key.
    public private(set) var values: [String: [UInt8]] = [:]

    public init() {}

    public var isEmpty: Bool { values.isEmpty }

    /// The part under `key` as `T`; nil when there is none, when it is no `T` or when one of its
    /// numbers lies outside its field's range (a journal is a file anyone can edit).
    public func value<T: FieldModel>(_ key: String, as type: T.Type) -> T? {
        guard let bytes = values[key], let value = try? JSONReader.read(T.self, from: bytes), value.fieldRangeProblem == nil else { return nil }
        return value
    }

    /// Sets the part under `key` to `value` written as JSON (nil removes it).
    public mutating func set(_ key: String, _ value: (any JSONWritable)?) {
        guard let value else { values[key] = nil; return }
        var output = JSONOutput()
        value.writeJSON(to: &output)
        values[key] = output.bytes
    }

    /// Sets the part under `key` to these JSON bytes (one value, as a reader found it).
    mutating func set(_ key: String, json: [UInt8]) { values[key] = json }

    /// These parts with the keys in `keys` only.
    public func keeping(_ keys: Set<String>) -> ModelParts {
        var kept = ModelParts()
        kept.values = values.filter { keys.contains($0.key) }
        return kept
    }
}
