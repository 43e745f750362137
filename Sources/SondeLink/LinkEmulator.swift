import SondeCore

/// Which way a packet crosses the link.
public enum LinkDirection: String, Sendable, CaseIterable {
    /// Toward the checked process (from the host side's TUN to the namespace's).
    case down
    /// Away from the checked process.
    case up
}

/// Both directions of an emulated link (`DirectionEmulator`), driven by the caller's clock: the
/// pure core that `LinkEmulatorThread` runs between two TUN devices and tests run with made-up
/// times. DNS queries are held back by `dns-delay` on the way up. Not thread-safe: one owner.
public struct LinkEmulator<Payload> {
    public private(set) var down: DirectionEmulator<Payload>
    public private(set) var up: DirectionEmulator<Payload>
    public let profile: LinkProfile

    /// - Parameters:
    ///   - seed: the loss and jitter draws' seed (each direction derives its own).
    ///   - start: the caller's clock (ns) when the link comes up.
    public init(profile: LinkProfile, seed: UInt64, start: Int64) {
        self.profile = profile
        down = DirectionEmulator(direction: profile.down, profile: profile, applyDNSDelay: false, seed: seed, start: start)
        up = DirectionEmulator(direction: profile.up, profile: profile, applyDNSDelay: true, seed: seed &+ 0x6A09_E667_F3BC_C909, start: start)
    }

    public mutating func arrive(_ payload: Payload, length: Int, direction: LinkDirection, isDNS: Bool = false, at now: Int64) {
        switch direction {
        case .down: down.arrive(payload, length: length, isDNS: isDNS, at: now)
        case .up: up.arrive(payload, length: length, isDNS: isDNS, at: now)
        }
    }

    /// The earlier of the two directions' next deadlines, or nil when nothing is pending.
    public var nextDeadline: Int64? {
        switch (down.nextDeadline, up.nextDeadline) {
        case let (a?, b?): min(a, b)
        case let (a?, nil): a
        case let (nil, b?): b
        case (nil, nil): nil
        }
    }

    /// Hands `body` the packets due by `now`, each direction in order, at most `limit` per
    /// direction. Returns whether more are due by `now` (only when `limit` stopped a direction).
    @discardableResult
    public mutating func deliver(until now: Int64, limit: Int = .max, _ body: (LinkDirection, Payload) -> Void) -> Bool {
        let moreDown = down.deliver(until: now, limit: limit) { body(.down, $0) }
        let moreUp = up.deliver(until: now, limit: limit) { body(.up, $0) }
        return moreDown || moreUp
    }

    public func counters(_ direction: LinkDirection) -> LinkCounters {
        direction == .down ? down.counters : up.counters
    }
}
