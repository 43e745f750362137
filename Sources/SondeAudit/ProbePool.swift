import Foundation
import SondeCore
import Synchronization

/// Runs blocking probes a few at a time, each worker on a thread of the audit's `WorkerPool`
/// (a libcurl transfer, `EasyHandle.perform`, blocks its thread; Swift's cooperative pool must not).
enum ProbePool {
    /// The audit's threads: elastic (a worker never waits for another), at most 4 kept idle between audits.
    private static let threads = WorkerPool(name: "sonde-audit", sizing: .elastic(keepIdle: 4))

    /// `body` for each item, at most `width` at once (1…16), results in the items' order. An item
    /// not started before `deadline` (monotonic µs) is not run: its result is nil. Returns when every
    /// started item has finished; the caller's thread waits.
    static func map<Item: Sendable, Result: Sendable>(_ items: [Item], width: Int, deadline: Int64,
                                                      _ body: @escaping @Sendable (Item) -> Result) -> [Result?] {
        guard !items.isEmpty else { return [] }
        let state = Mutex<(next: Int, results: [Result?])>((0, Array(repeating: nil, count: items.count)))
        let group = DispatchGroup()
        let workers = min(max(1, min(width, 16)), items.count)
        for _ in 0..<workers {
            group.enter()
            threads.submit {
                while true {
                    let index: Int? = state.withLock { state in
                        guard state.next < items.count, monotonicMicroseconds() < deadline else { return nil }
                        defer { state.next += 1 }
                        return state.next
                    }
                    guard let index else { break }
                    let result = body(items[index])
                    state.withLock { $0.results[index] = result }
                }
                group.leave()
            }
        }
        group.wait()
        return state.withLock { $0.results }
    }
}
