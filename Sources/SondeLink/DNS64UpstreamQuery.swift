import SondeCore
import SondeDNS

/// The upstream exchanges of one client query to the DNS64 (its AAAA round, then its A round):
/// each upstream question goes to the upstreams in order, but first to the one that already
/// answered this query, and never again to one that failed to answer it (a timeout, a refused
/// port), so that a dead first nameserver costs one try, not one per round.
///
/// An upstream's reply is used when it decodes (12 bytes at least), answers the question asked
/// (`DNS64Resolver` checks the id and question again) and its rcode is neither SERVFAIL nor
/// REFUSED; otherwise the next upstream is asked. A SERVFAIL or REFUSED reply is kept and returned
/// when no upstream gives better. A truncated UDP reply (TC) is asked again over TCP (RFC 7766);
/// when TCP gives nothing usable the truncated UDP reply is returned.
///
/// Bounds: every exchange ends by `deadline` (monotonic µs), each UDP try within `tryBudget` (µs).
/// Threading: a value used by one DNS64 worker thread; `ask` blocks it.
struct DNS64UpstreamQuery {
    let upstreams: [DNS64Server.Upstream]
    let deadline: Int64
    let tryBudget: Int64
    /// The upstream that gave this query a usable reply, asked first from then on.
    private var answered: Int?
    /// Upstreams that gave this query no reply at all: not asked again.
    private var silent: Set<Int> = []

    init(upstreams: [DNS64Server.Upstream], deadline: Int64, tryBudget: Int64) {
        self.upstreams = upstreams
        self.deadline = deadline
        self.tryBudget = tryBudget
    }

    /// The reply to `query` (a question of sonde's own, its id first), nil when no upstream gave one.
    mutating func ask(_ query: [UInt8]) -> [UInt8]? {
        var order = Array(upstreams.indices)
        if let answered, let at = order.firstIndex(of: answered) { order.insert(order.remove(at: at), at: 0) }
        var kept: [UInt8]? = nil
        for index in order where !silent.contains(index) {
            let now = monotonicMicroseconds()
            let tryDeadline = min(deadline, now + tryBudget)
            guard tryDeadline > now else { break }
            let upstream = upstreams[index]
            var timing = DNSExchange.Timing()
            guard case let .success(udp) = DNSExchange(deadline: tryDeadline).exchange(query: query, address: upstream.address, family: upstream.family,
                                                                                        port: upstream.port, tcp: false, timing: &timing) else {
                silent.insert(index)
                continue
            }
            var reply = udp
            if udp[2] & 0x02 != 0,
               case let .success(full) = DNSExchange(deadline: deadline).exchange(query: query, address: upstream.address, family: upstream.family,
                                                                                 port: upstream.port, tcp: true, timing: &timing),
               Self.rcode(of: full) != nil {
                reply = full
            }
            switch Self.rcode(of: reply) {
            case nil:
                continue
            case 2?, 5?:
                kept = reply
                continue
            default:
                answered = index
                return reply
            }
        }
        return kept
    }

    /// The rcode of a reply that decodes as a response, nil for one that does not.
    static func rcode(of reply: [UInt8]) -> Int? {
        guard reply.count >= 12, let message = try? DNSMessage.decode(reply), message.flags & DNSMessageWriter.response != 0 else { return nil }
        return message.rcode
    }
}
