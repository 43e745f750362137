import Synchronization

/// Hands out the local ports of a block in turn (`--capture`: the capture filter names the block,
/// so only the soak's own connections are recorded). Thread-safe; wraps around the block.
public final class LocalPortCursor: Sendable {
    public let ports: ClosedRange<Int>
    private let next = Mutex(0)

    public init(ports: ClosedRange<Int>) {
        self.ports = ports
    }

    /// The next port of the block, round-robin.
    public func take() -> Int {
        let offset = next.withLock { value in
            defer { value = (value + 1) % ports.count }
            return value
        }
        return ports.lowerBound + offset
    }
}
