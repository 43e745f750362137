import SondeCore

/// Writes a model's fields as sonde's members of the HAR entry `output` has open, by its
/// `HARFieldTable`'s members (`HARFieldTable.members`, one per field of the walk).
/// `output` points at the caller's `JSONOutput`, valid for the walk only.
struct HARFieldWriter: FieldVisitor {
    typealias Failure = Never
    let output: UnsafeMutablePointer<JSONOutput>
    let members: [HARFieldTable.Member?]
    private var index = 0

    init(output: UnsafeMutablePointer<JSONOutput>, members: [HARFieldTable.Member?]) {
        self.output = output
        self.members = members
    }

    /// Writes `model`'s members into the object `output` has open.
    static func write<Model: FieldModel>(_ model: Model, members: [HARFieldTable.Member?], to output: inout JSONOutput) {
        withUnsafeMutablePointer(to: &output) { pointer in
            var writer = HARFieldWriter(output: pointer, members: members)
            var fields = model
            fields.visitFields(&writer)
        }
    }

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) {
        defer { index += 1 }
        guard Value.hasScalarForm, index < members.count, let member = members[index] else { return }
        let scalar = value.scalar ?? member.absent
        if scalar == nil, rule.omitsNil { return }
        output.pointee.key(named: member.name)
        if let scalar { scalar.write(to: &output.pointee) } else { output.pointee.null() }
    }
}
