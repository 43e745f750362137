import CLinkShim
import Foundation
import SondeCore
import SondeDNS
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `nat64` link's DNS64: UDP and TCP on 127.0.0.1:`port` in the host's namespace, which the
/// translator shows inside as `[fd53:6f6e:6465::53]:53` (`NAT64Translator.resolver6`). Answers come
/// from `DNS64Resolver`; its upstream queries go to `upstreams` (the host's resolv.conf
/// nameservers read at the link's start) as `DNS64UpstreamQuery` orders them (the one that
/// answered first, none that failed twice), over UDP, again over TCP when the answer is truncated.
///
/// Bounds: at most `maxInFlight` queries and TCP connections are worked on at once (a UDP query
/// beyond it is dropped, so the client retries), of them at most `maxTCPConnections` TCP
/// connections, so UDP always has slots: a TCP connection beyond it closes the connection idle the
/// longest (waiting for a query), or is closed itself when none is idle; each query has
/// `queryBudget` in all for its upstream exchanges (under glibc's 5 s retry, so a client sees
/// SERVFAIL rather than a timeout), each upstream try at most `tryBudget`; a TCP connection is
/// closed after `tcpIdle` without a complete query or after `tcpQueries` queries; messages are at
/// most 65,535 bytes (`DNSMessageWriter.maxLength`).
///
/// Threading: `start` runs the listener thread `sonde-dns64`, which reads the sockets and hands
/// each query to a thread of its own (`sonde-dns64-q`); all of them in the host's namespaces
/// (started from the thread that starts the link). `stop` (any thread, idempotent) ends the
/// listener; workers still running finish their reply and end.
final class DNS64Server: @unchecked Sendable {
    /// An upstream nameserver: a numeric address, its family (4 or 6) and port (53; tests use others).
    struct Upstream: Sendable, Equatable {
        var address: String
        var family: Int
        var port: Int = 53
    }

    /// A TCP connection's state: whether a query of it is being answered, and since when (µs) it
    /// has been idle otherwise.
    private struct TCPConnection {
        var busy = false
        var idleSince: Int64
    }

    static let maxInFlight = 64
    static let maxTCPConnections = 16
    static let queryBudgetMicros: Int64 = 4_000_000
    static let tryBudgetMicros: Int64 = 2_000_000
    static let tcpIdleMicros: Int64 = 5_000_000
    static let tcpQueries = 100

    let port: UInt16
    let upstreams: [Upstream]
    private let resolver: DNS64Resolver
    private let udp: Int32
    private let tcp: Int32
    private let stopEvent: Int32
    private let inFlight = Atomic<Int>(0)
    /// The TCP connections being served, by descriptor. A descriptor is removed before it is
    /// closed, and only shut down while it is here (so never one reused by another socket).
    private let tcpConnections = Mutex<[Int32: TCPConnection]>([:])
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// Binds UDP and TCP on 127.0.0.1 at one ephemeral port (a few tries: the UDP port may be
    /// taken for TCP).
    init(upstreams: [Upstream], resolver: DNS64Resolver = DNS64Resolver()) throws(LinkError) {
        self.upstreams = upstreams
        self.resolver = resolver
        let bound: LoopbackSocketPair
        switch LoopbackSocketPair.bind(nonBlocking: true, backlog: 64) {
        case .success(let pair): bound = pair
        case .failure(.udpSocket(let code)): throw LinkError.setup("opening the DNS64's UDP socket", code: -code)
        case .failure(.noPortFree(let tries)):
            throw LinkError(.setup, "the DNS64 found no port of 127.0.0.1 free for both UDP and TCP in \(tries) tries")
        }
        let event = sonde_link_eventfd()
        guard event >= 0 else {
            close(bound.udp)
            close(bound.tcp)
            throw LinkError.setup("creating the DNS64's stop event", code: event)
        }
        (udp, tcp, port, stopEvent) = (bound.udp, bound.tcp, bound.port, event)
    }

    func start() {
        Thread.startNamed("sonde-dns64") { [self] in
            serveSockets()
            finished.signal()
        }
    }

    /// Ends the listener (waits at most 2 s for it) and closes the TCP listener. Idempotent. The
    /// UDP socket stays open for workers still answering (each holds the server) until deinit.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(stopEvent, &one, 8)
        if finished.wait(timeout: .now() + 2) == .success { close(tcp) }
    }

    deinit {
        stop()
        close(udp)
        close(stopEvent)
    }

    private func serveSockets() {
        var descriptors = [pollfd(fd: udp, events: Int16(POLLIN), revents: 0), pollfd(fd: tcp, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stopEvent, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: DNSMessageWriter.maxLength)
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[2].revents != 0 { return }
            if descriptors[0].revents != 0 {
                for _ in 0..<16 {
                    var from = sockaddr_in()
                    var fromLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let count = buffer.withUnsafeMutableBytes { bytes in
                        withUnsafeMutablePointer(to: &from) { pointer in
                            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, bytes.baseAddress, bytes.count, 0, $0, &fromLength) }
                        }
                    }
                    guard count >= 0 else { break }
                    let query = Array(buffer.prefix(count))
                    let client = from
                    dispatch { [self] in
                        guard let reply = respond(to: query, tcp: false) else { return }
                        var to = client
                        _ = reply.withUnsafeBytes { bytes in
                            withUnsafeMutablePointer(to: &to) { pointer in
                                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                    sendto(udp, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                                }
                            }
                        }
                    }
                }
            }
            if descriptors[1].revents != 0 {
                for _ in 0..<16 {
                    let connection = accept(tcp, nil, nil)
                    guard connection >= 0 else { break }
                    _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
                    guard admit(connection) else {
                        close(connection)
                        continue
                    }
                    if !dispatch({ [self] in serve(connection: connection) }) {
                        forget(connection)
                        close(connection)
                    }
                }
            }
        }
    }

    /// Runs `work` on a thread of its own unless `maxInFlight` are running (false: not run).
    @discardableResult
    private func dispatch(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard inFlight.add(1, ordering: .relaxed).newValue <= Self.maxInFlight else {
            inFlight.subtract(1, ordering: .relaxed)
            return false
        }
        Thread.startNamed("sonde-dns64-q", stackSize: 256 << 10) { [self] in
            work()
            inFlight.subtract(1, ordering: .relaxed)
        }
        return true
    }

    /// Registers a new TCP connection; at `maxTCPConnections` first shuts down the one idle the
    /// longest (its worker then ends and closes it). False: every connection is busy, refuse this one.
    private func admit(_ connection: Int32) -> Bool {
        tcpConnections.withLock { connections in
            if connections.count >= Self.maxTCPConnections {
                guard let oldest = connections.filter({ !$0.value.busy }).min(by: { $0.value.idleSince < $1.value.idleSince })?.key else { return false }
                _ = shutdown(oldest, Int32(SHUT_RDWR))
                connections[oldest] = nil
            }
            connections[connection] = TCPConnection(idleSince: monotonicMicroseconds())
            return true
        }
    }

    private func forget(_ connection: Int32) {
        tcpConnections.withLock { $0[connection] = nil }
    }

    private func mark(_ connection: Int32, busy: Bool) {
        tcpConnections.withLock { connections in
            guard connections[connection] != nil else { return }
            connections[connection] = TCPConnection(busy: busy, idleSince: monotonicMicroseconds())
        }
    }

    /// Queries on one TCP connection (two-byte length, message), answered one after another.
    private func serve(connection: Int32) {
        defer {
            forget(connection)
            close(connection)
        }
        for _ in 0..<Self.tcpQueries {
            let deadline = monotonicMicroseconds() + Self.tcpIdleMicros
            guard let prefix = DeadlineSocket.receiveExactly(connection, 2, deadline: deadline) else { return }
            let length = Int(prefix[0]) << 8 | Int(prefix[1])
            guard length >= 12, let query = DeadlineSocket.receiveExactly(connection, length, deadline: deadline) else { return }
            mark(connection, busy: true)
            guard let reply = respond(to: query, tcp: true) else { return }
            let framed = [UInt8(reply.count >> 8), UInt8(reply.count & 0xFF)] + reply
            guard DeadlineSocket.sendAll(connection, framed, deadline: monotonicMicroseconds() + Self.tcpIdleMicros) else { return }
            mark(connection, busy: false)
        }
    }

    private func respond(to query: [UInt8], tcp: Bool) -> [UInt8]? {
        var upstream = DNS64UpstreamQuery(upstreams: upstreams, deadline: monotonicMicroseconds() + Self.queryBudgetMicros, tryBudget: Self.tryBudgetMicros)
        return resolver.respond(to: query, tcp: tcp, nextID: { UInt16.random(in: 0...UInt16.max) }) { upstream.ask($0) }
    }
}
