import Foundation
import SondeCore

/// What the OpenTelemetry SDK's variables say of the resource every export names
/// (`opentelemetry.proto.resource.v1.Resource`), by the SDK specification's rules:
/// `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`, values percent-decoded) adds attributes, and
/// `OTEL_SERVICE_NAME` sets `service.name`, winning over a `service.name` in the attributes;
/// without either, `service.name` is `sonde`. `service.instance.id` is this process's own random
/// UUID (the conventions' advice), unless the attributes give one.
///
/// sonde's own attributes (`sonde.*`: the run, the check, the vantage) describe the run: the
/// variables cannot replace them (`attributes(adding:)` leaves a variable's `sonde.*` key out).
public struct OTLPResourceSettings: Sendable, Hashable {
    /// `service.name`.
    public var serviceName = "sonde"
    /// The variables' other attributes, in their order (a key given twice: the last value).
    public var attributes: [String: String] = [:]
    public var order: [String] = []

    public init() {}

    /// The resource the SDK's variables describe; a malformed `OTEL_RESOURCE_ATTRIBUTES` is a
    /// problem naming it (the SDK would drop the whole value: a run here says so instead).
    init(environment: [String: String]) throws(SettingProblem) {
        if let text = OTLPSettings.nonEmpty(environment["OTEL_RESOURCE_ATTRIBUTES"]) {
            for (key, value) in try OTLPSettings.parsePairs(text, variable: "OTEL_RESOURCE_ATTRIBUTES") {
                if key == "service.name" {
                    serviceName = value
                    continue
                }
                if attributes.updateValue(value, forKey: key) == nil { order.append(key) }
            }
        }
        if let name = OTLPSettings.nonEmpty(environment["OTEL_SERVICE_NAME"]) { serviceName = name }
    }

    /// This process's `service.instance.id`: a random (version 4) UUID, the same for every
    /// export the process makes (a run's metrics and traces, serve's runs and its own health).
    public static let processInstanceID = UUID().uuidString.lowercased()

    /// The resource's attributes: `service.name`, `service.version` (sonde's, unless the variables
    /// give one), `service.instance.id`, the variables' other attributes, then `own` (sonde's
    /// `sonde.*` attributes, which no variable replaces).
    func attributes(adding own: [OTLPAttribute]) -> [OTLPAttribute] {
        var result: [OTLPAttribute] = [.string("service.name", serviceName),
                                       .string("service.version", attributes["service.version"] ?? SondeVersion.current),
                                       .string("service.instance.id", attributes["service.instance.id"] ?? Self.processInstanceID)]
        let ownKeys = Set(own.map(\.key))
        for key in order where key != "service.version" && key != "service.instance.id" && !key.hasPrefix("sonde.") && !ownKeys.contains(key) {
            if let value = attributes[key] { result.append(.string(key, value)) }
        }
        return result + own
    }
}
