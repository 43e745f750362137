import SondeCore

/// The resource of what one run exports (`opentelemetry.proto.resource.v1.Resource`): the
/// service (`service.name`, `service.version`, `service.instance.id` and the SDK variables'
/// attributes: `OTLPResourceSettings`), and sonde's own `sonde.vantage` (serve's `vantage:`),
/// `sonde.check` (the suite check; absent outside checks), `sonde.run.id` and `sonde.command`.
struct OTLPResource: Hashable {
    var service: OTLPResourceSettings
    var vantage: String?
    var check: String?
    var runID: String
    var command: String

    var attributes: [OTLPAttribute] {
        var own: [OTLPAttribute] = [.string("sonde.run.id", runID), .string("sonde.command", command)]
        if let vantage { own.append(.string("sonde.vantage", vantage)) }
        if let check { own.append(.string("sonde.check", check)) }
        return service.attributes(adding: own)
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
