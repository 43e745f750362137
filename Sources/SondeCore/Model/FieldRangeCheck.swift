/// Finds the first field whose number lies outside its rule's range (`FieldModel.fieldRangeProblem`).
/// The message names the field's path from the walked model (`phases.dns 1e+16 ms is outside …`);
/// nothing is built unless a value is out of range.
struct FieldRangeCheck: FieldVisitor {
    typealias Failure = Never
    private(set) var problem: String?

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) {
        guard problem == nil else { return }
        problem = value.rangeProblem(rule, name: name)
    }
}
