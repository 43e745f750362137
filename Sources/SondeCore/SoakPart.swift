/// A kind extension's part of a soak's model (a subscription's; docs/architecture.md): what
/// each attempt records under `attemptKey` (its subprotocol's `SoakSubprotocol.parts`), what the
/// soak's config records under `configKey` (the extension's `apply` sets it), and how
/// `SoakReportBuilder` sums the attempts' parts into the soak's, under `summaryKey`, and judges
/// it. SondeCore holds the parts as JSON (`ModelParts`) and never reads them; the registry lists
/// the parts (`CheckKinds.soakParts`), and whoever builds a soak report passes them.
public protocol SoakPart: Sendable {
    /// The key of the part in `attempts[]`, in the soak and in its `config`.
    var attemptKey: String { get }
    var summaryKey: String { get }
    var configKey: String { get }

    /// The soak's part from its config and its attempts (in order), and the gaps between the
    /// subprotocol's events (`SoakSamples.nextGaps`, ms); nil when the soak has none (its config
    /// has no such part). `problem`: why the part fails the soak, in words, or nil. Everything
    /// read comes from a journal: wrapping arithmetic, nothing trusted.
    func summary(config: SoakConfig, attempts: [SoakAttempt], eventGapsMs: DistributionSummary?) -> (part: any JSONWritable, problem: String?)?

    /// The schemas of the attempt's, the soak's and the config's part (`Reports/schema`).
    var attemptSchema: ModelSchema { get }
    var summarySchema: ModelSchema { get }
    var configSchema: ModelSchema { get }
}

extension ModelSchema {
    /// This object schema with `properties` added after its own, or, with `member`, added to the
    /// object schema of its property `member` (the soak's `config`). Any other schema is returned as it is.
    func adding(_ properties: [Property], in member: String? = nil) -> ModelSchema {
        guard case .object(let own) = self else { return self }
        guard let member else { return .object(own + properties) }
        return .object(own.map { property in
            guard property.name == member else { return property }
            var changed = property
            changed.schema = property.schema.adding(properties)
            return changed
        })
    }
}

extension SoakAttempt {
    /// The attempt's schema with the parts' (`SoakPart.attemptSchema`), each left out when absent.
    public static func schemaDefinition(parts: [any SoakPart]) -> ModelSchema {
        schemaDefinition.adding(parts.map { ModelSchema.Property(name: $0.attemptKey, schema: $0.attemptSchema, required: false) })
    }
}

extension SoakReport {
    /// The soak's schema with the parts' (`SoakPart.summarySchema`, and `configSchema` in its
    /// `config`), each left out when absent.
    public static func schemaDefinition(parts: [any SoakPart]) -> ModelSchema {
        schemaDefinition
            .adding(parts.map { ModelSchema.Property(name: $0.summaryKey, schema: $0.summarySchema, required: false) })
            .adding(parts.map { ModelSchema.Property(name: $0.configKey, schema: $0.configSchema, required: false) }, in: "config")
    }
}
