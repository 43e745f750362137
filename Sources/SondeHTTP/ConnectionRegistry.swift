/// Assigns connection ids, since libcurl 7.88 has no CURLINFO_CONN_ID.
///
/// A transfer that opened a connection (`CURLINFO_NUM_CONNECTS` > 0) gets a new id, bound to its
/// 4-tuple; a transfer on a reused connection gets the id bound to its 4-tuple. A 4-tuple is
/// unique among open connections, so this identifies connections exactly while they live.
/// Under `--parallel` an HTTP/2 stream can finish before the transfer that opened its
/// connection: its tuple then gets an id that the opener, when it finishes, takes over.
///
/// One registry is shared by every runner of a run, so ids are unique across the run's groups
/// (HAR's `connection` field relies on it). Threading: used only from the engine's thread.
public final class ConnectionRegistry {
    public init() {}

    /// A TCP (or QUIC) connection's addresses and ports as libcurl reports them.
    struct FourTuple: Hashable {
        var localAddress: String?
        var localPort: Int
        var remoteAddress: String?
        var remotePort: Int

        /// The ports alone (equal tuples have equal ports): hashing the two address strings cost
        /// more than the rest of the lookup, and the local port already tells connections apart.
        func hash(into hasher: inout Hasher) {
            hasher.combine(localPort)
            hasher.combine(remotePort)
        }
    }

    private var idsByTuple: [FourTuple: Int] = [:]
    /// Tuples first seen on a reused connection, whose opener has not finished yet.
    private var awaitingOpener: Set<FourTuple> = []
    private var nextID = 1

    func connectionID(tuple: FourTuple, opened: Bool) -> Int {
        if let id = idsByTuple[tuple] {
            if !opened { return id }
            if awaitingOpener.remove(tuple) != nil { return id }
        }
        let id = nextID
        nextID += 1
        idsByTuple[tuple] = id
        if !opened { awaitingOpener.insert(tuple) }
        return id
    }
}
