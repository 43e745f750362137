import SondeCore

/// The resource of what one run exports (`opentelemetry.proto.resource.v1.Resource`):
/// `service.name=sonde`, `service.version`, and sonde's own `sonde.vantage` (serve's
/// `vantage:`), `sonde.check` (the suite check; absent outside checks), `sonde.run.id` and
/// `sonde.command`.
struct OTLPResource: Hashable {
    var vantage: String?
    var check: String?
    var runID: String
    var command: String

    var attributes: [OTLPAttribute] {
        var attributes: [OTLPAttribute] = [.string("service.name", "sonde"), .string("service.version", SondeVersion.current),
                                           .string("sonde.run.id", runID), .string("sonde.command", command)]
        if let vantage { attributes.append(.string("sonde.vantage", vantage)) }
        if let check { attributes.append(.string("sonde.check", check)) }
        return attributes
    }

    /// Writes `Resource` (attributes = 1) as field `field` of the enclosing message.
    func write(_ field: Int, into writer: inout ProtobufWriter) {
        writer.message(field) { $0.attributes(1, attributes) }
    }

    /// Writes `InstrumentationScope` (name = 1, version = 2) as field `field`.
    static func writeScope(_ field: Int, into writer: inout ProtobufWriter) {
        writer.message(field) {
            $0.string(1, "sonde")
            $0.string(2, SondeVersion.current)
        }
    }
}
