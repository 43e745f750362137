import NIOCore
import SondeCore
import Synchronization

/// serve's open HTTP connections, by client address, and who gives way when a new one comes:
/// a slowloris (connections that never send a request) can no longer fill serve and leave
/// `/-/healthy` and `/metrics` waiting in the listen backlog.
///
/// A new connection is admitted when its address holds fewer than `maxPerAddress` and serve fewer
/// than `maxConnections`; otherwise the oldest connection that is not answering a request gives
/// way (closed): one of the same address when that address is at its cap, else one of the
/// address holding the most. A connection that never sent a whole request head goes before one
/// waiting between requests (a scraper's kept-alive connection); one whose request is being
/// answered is never closed. When none can give way, the new connection is closed instead.
/// So a client's new connection always finds room unless every slot is answering a request.
///
/// Threading: any event loop (a mutex); the channels are closed outside it.
final class ConnectionTable: Sendable {
    enum State: Sendable {
        /// Accepted, no whole request head yet.
        case fresh
        /// A request is being answered.
        case busy
        /// Answered, waiting for the next request.
        case waiting
    }

    private struct Entry {
        let address: String
        let channel: any Channel
        var state: State
        /// Monotonic µs of the last change of state.
        var since: Int64
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perAddress: [String: Int] = [:]
    }

    let maxConnections: Int
    let maxPerAddress: Int
    private let table = Mutex(Table())

    init(maxConnections: Int, maxPerAddress: Int) {
        self.maxConnections = max(1, maxConnections)
        self.maxPerAddress = max(1, min(maxPerAddress, self.maxConnections))
    }

    /// Connections open now, and those of `address`.
    var count: Int { table.withLock { $0.entries.count } }
    func count(of address: String) -> Int { table.withLock { $0.perAddress[address] ?? 0 } }

    /// Admits `channel` from `address` (making room as the type says); false when it must be closed.
    func admit(_ channel: any Channel, address: String) -> Bool {
        let now = monotonicMicroseconds()
        let (admitted, evicted): (Bool, (any Channel)?) = table.withLock { table in
            var victim: ObjectIdentifier?
            if (table.perAddress[address] ?? 0) >= maxPerAddress {
                victim = Self.oldestIdle(in: table, of: address)
                if victim == nil { return (false, nil) }
            } else if table.entries.count >= maxConnections {
                let crowded = table.perAddress.max { $0.value < $1.value }?.key
                victim = crowded.flatMap { Self.oldestIdle(in: table, of: $0) } ?? Self.oldestIdle(in: table, of: nil)
                if victim == nil { return (false, nil) }
            }
            var evicted: (any Channel)?
            if let victim, let entry = table.entries.removeValue(forKey: victim) {
                table.perAddress[entry.address, default: 1] -= 1
                if table.perAddress[entry.address] == 0 { table.perAddress[entry.address] = nil }
                evicted = entry.channel
            }
            table.entries[ObjectIdentifier(channel)] = Entry(address: address, channel: channel, state: .fresh, since: now)
            table.perAddress[address, default: 0] += 1
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    /// The connection's request began (`busy`) or was answered (`waiting`).
    func update(_ channel: any Channel, to state: State) {
        let now = monotonicMicroseconds()
        table.withLock { table in
            guard table.entries[ObjectIdentifier(channel)] != nil else { return }
            table.entries[ObjectIdentifier(channel)]?.state = state
            table.entries[ObjectIdentifier(channel)]?.since = now
        }
    }

    /// The connection closed (or was closed here).
    func remove(_ channel: any Channel) {
        table.withLock { table in
            guard let entry = table.entries.removeValue(forKey: ObjectIdentifier(channel)) else { return }
            table.perAddress[entry.address, default: 1] -= 1
            if table.perAddress[entry.address] == 0 { table.perAddress[entry.address] = nil }
        }
    }

    /// The oldest `fresh` connection (of `address`, or any when nil), else the oldest `waiting` one.
    private static func oldestIdle(in table: Table, of address: String?) -> ObjectIdentifier? {
        var best: (id: ObjectIdentifier, rank: Int, since: Int64)?
        for (id, entry) in table.entries where address == nil || entry.address == address {
            let rank: Int
            switch entry.state {
            case .fresh: rank = 0
            case .waiting: rank = 1
            case .busy: continue
            }
            if let current = best, (current.rank, current.since) <= (rank, entry.since) { continue }
            best = (id, rank, entry.since)
        }
        return best?.id
    }
}
