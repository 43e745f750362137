import SondeCore

/// How a kind extension's part of a soak (`SoakPart`: a subscription's figures; docs/architecture.md,
/// "Adding a kind extension") shows in the soak's outputs: its lines in the terminal and in
/// report.html, its Prometheus families (the file and `sonde serve`'s /metrics) and its OTLP sums.
/// The extension names it (`KindExtension.soakPartRenderer`); the run's section renderers carry
/// it (`ReportSectionRenderers.soakParts`). Pure: a soak in, text or numbers out; a soak without
/// the part gives nothing.
public protocol SoakPartRenderer: SoakPart {
    /// The part's lines in words, plain text without a final period (the terminal shows each as a
    /// line made safe, report.html as a sentence, escaped).
    func lines(_ soak: SoakReport) -> [String]
    /// The part's Prometheus families over `soaks`: each soak's series carry `labels` (a check's, a
    /// link's) and then `url`. Labels must not change from one run to the next.
    func prometheus(_ soaks: [SoakReport], labels: [(String, String)]) -> PrometheusFamilies
    /// The part's OTLP sums of one soak (`SondeOTLP` sends them as monotonic sums).
    func otlpSums(_ soak: SoakReport) -> [SoakPartSum]
}

/// One OTLP sum a soak part adds (`SoakPartRenderer.otlpSums`): an integer value with its
/// metric's name, unit and description, and its attributes (string values) in order.
public struct SoakPartSum: Sendable {
    public var name: String
    public var unit: String
    public var description: String
    public var value: Int64
    public var attributes: [(key: String, value: String)]

    public init(name: String, unit: String, description: String, value: Int64, attributes: [(key: String, value: String)]) {
        self.name = name
        self.unit = unit
        self.description = description
        self.value = value
        self.attributes = attributes
    }
}
