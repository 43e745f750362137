import SondeCore

/// Whether each packet of one direction is lost: independently with a fixed probability, or by
/// Gilbert's two-state chain (Good: no loss; Bad: every packet lost), stepped once per packet
/// before the packet is judged. Deterministic for a given generator seed.
struct LossProcess: Sendable {
    private let model: LinkProfile.LossModel
    private let probability: Double
    private var bad = false
    private var random: SeededGenerator

    init(model: LinkProfile.LossModel, probability: Double, seed: UInt64) {
        self.model = model
        self.probability = probability
        self.random = SeededGenerator(seed: seed)
    }

    /// Whether the next packet is lost.
    mutating func dropsNext() -> Bool {
        switch model {
        case .independent:
            if probability <= 0 { return false }
            if probability >= 1 { return true }
            return random.unit() < probability
        case let .gilbert(p, r):
            let draw = random.unit()
            bad = bad ? !(draw < r) : draw < p
            return bad
        }
    }
}
