/// A first-in first-out queue on a growable ring: O(1) append, peek and removal at the head,
/// which the emulator's queues and delay lines do per packet. Not thread-safe (a value type owned
/// by one emulator).
struct PacketRing<Element> {
    private var storage: [Element?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var first: Element? { count == 0 ? nil : storage[head] }

    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    @discardableResult
    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    /// Replaces the head (there must be one).
    mutating func replaceFirst(_ element: Element) {
        guard count > 0 else { return }
        storage[head] = element
    }

    private mutating func grow() {
        var larger: [Element?] = Array(repeating: nil, count: storage.count * 2)
        for index in 0..<count { larger[index] = storage[(head + index) % storage.count] }
        storage = larger
        head = 0
    }
}
