import SondeCore

/// One OpenTelemetry attribute (`opentelemetry.proto.common.v1.KeyValue`): a key and a scalar
/// value (`AnyValue`'s string, bool, int and double forms; sonde sends no arrays or maps).
struct OTLPAttribute: Hashable {
    enum Value: Hashable {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
    }

    var key: String
    var value: Value

    init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    static func string(_ key: String, _ value: String) -> OTLPAttribute { OTLPAttribute(key, .string(value)) }
    static func int(_ key: String, _ value: Int) -> OTLPAttribute { OTLPAttribute(key, .int(Int64(value))) }
    static func double(_ key: String, _ value: Double) -> OTLPAttribute { OTLPAttribute(key, .double(value)) }
    static func bool(_ key: String, _ value: Bool) -> OTLPAttribute { OTLPAttribute(key, .bool(value)) }
    /// `url.full` without credentials (`Redactor.withoutCredentials`), as the conventions require.
    static func urlFull(_ url: String) -> OTLPAttribute { .string("url.full", Redactor.withoutCredentials(url: url)) }

    /// Writes this attribute as a `KeyValue` (key = 1, value = 2; `AnyValue`: string_value = 1,
    /// bool_value = 2, int_value = 3, double_value = 4).
    func write(into writer: inout ProtobufWriter) {
        writer.string(1, key)
        writer.message(2) { any in
            switch value {
            case .string(let text): any.string(1, text)
            case .bool(let flag): any.bool(2, flag)
            case .int(let number): any.signed(3, number)
            case .double(let number): any.double(4, number)
            }
        }
    }
}

extension ProtobufWriter {
    /// Writes each attribute as a repeated `KeyValue` field numbered `field`.
    mutating func attributes(_ field: Int, _ attributes: [OTLPAttribute]) {
        for attribute in attributes { message(field) { attribute.write(into: &$0) } }
    }
}
