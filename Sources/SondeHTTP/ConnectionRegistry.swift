/// Numbers the connections of one run, so that transactions sharing a connection share an id.
///
/// Two sources of identity, one numbering: on libcurl 8.2.0 and later a connection is libcurl's
/// own `CURLINFO_CONN_ID` within its pool (one multi handle: `pool`); on libcurl 7.88, which has
/// no CURLINFO_CONN_ID, it is the connection's 4-tuple. Either way sonde's id is the next number
/// (from 1) the first time the run sees the connection, so both libcurls tell the same reuse
/// story: a keep-alive run of three requests has one id, a `--no-reuse` run three.
///
/// The 4-tuple way: a transfer that opened a connection (`CURLINFO_NUM_CONNECTS` > 0) gets a new
/// id, bound to its 4-tuple; a transfer on a reused connection gets the id bound to its 4-tuple. A
/// 4-tuple is unique among open connections, so this identifies connections exactly while they
/// live. Under `--parallel` an HTTP/2 stream can finish before the transfer that opened its
/// connection: its tuple then gets an id that the opener, when it finishes, takes over. (libcurl's
/// own id has no such case: it names the connection whichever transfer finishes first.)
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

    /// libcurl's id of a connection within one connection pool.
    struct PooledID: Hashable {
        var pool: Int
        var curlID: Int64
    }

    private var idsByTuple: [FourTuple: Int] = [:]
    /// Tuples first seen on a reused connection, whose opener has not finished yet.
    private var awaitingOpener: Set<FourTuple> = []
    private var idsByCurlID: [PooledID: Int] = [:]
    private var nextID = 1
    private var nextPool = 1

    /// A number for a new connection pool (a multi handle): libcurl numbers the connections of
    /// each pool from 0, so its ids mean something only together with their pool.
    func newPool() -> Int {
        defer { nextPool += 1 }
        return nextPool
    }

    /// The id of the connection libcurl calls `curlID` in `pool` (libcurl 8.2.0 and later).
    func connectionID(_ key: PooledID) -> Int {
        if let id = idsByCurlID[key] { return id }
        let id = takeNextID()
        idsByCurlID[key] = id
        return id
    }

    /// The id of the connection with `tuple`, which this transfer `opened` or reused (libcurl 7.88).
    func connectionID(tuple: FourTuple, opened: Bool) -> Int {
        if let id = idsByTuple[tuple] {
            if !opened { return id }
            if awaitingOpener.remove(tuple) != nil { return id }
        }
        let id = takeNextID()
        idsByTuple[tuple] = id
        if !opened { awaitingOpener.insert(tuple) }
        return id
    }

    private func takeNextID() -> Int {
        defer { nextID += 1 }
        return nextID
    }
}
