/// Writes each field as `"name":value` into the object `output` has open (`FieldModel.writeJSON`).
/// `output` points at the caller's `JSONOutput`, valid for the walk only.
struct JSONFieldWriter: FieldVisitor {
    typealias Failure = Never
    let output: UnsafeMutablePointer<JSONOutput>

    @inline(__always)
    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) {
        if rule.omitsNil && value.isAbsent { return }
        output.pointee.key(name)
        value.writeModelValue(to: &output.pointee)
    }

    mutating func visitParts(_ parts: inout ModelParts) {
        for (key, json) in parts.values.sorted(by: { $0.key < $1.key }) {
            output.pointee.key(named: key)
            output.pointee.beginRawValue()
            output.pointee.appendRaw(json)
        }
    }
}
