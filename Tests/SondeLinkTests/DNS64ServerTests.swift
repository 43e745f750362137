import Foundation
import SondeCore
import SondeDNS
@testable import SondeLink
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The link's DNS64 server (`DNS64Server`, `DNS64UpstreamQuery`) over real sockets on 127.0.0.1:
/// upstreams that are dead, answer unusably (a 1-byte reply, SERVFAIL, a truncated reply whose TCP
/// answer is empty) or well, and clients holding TCP connections idle. No root needed: the
/// upstreams listen on ephemeral ports (`DNS64Server.Upstream.port`).
@Suite(.serialized) struct DNS64ServerTests {
    /// A nameserver on 127.0.0.1 (UDP, and TCP on the same port): `reply` answers a query's bytes
    /// (nil: stay silent), `tcpReply` a TCP query's (nil: close the connection). Serves until
    /// `stop` or 30 s at most. Counts the UDP queries it got.
    final class Nameserver: @unchecked Sendable {
        let port: Int
        private let udp: Int32, tcp: Int32
        private let stopped = Atomic<Bool>(false)
        let queries = Atomic<Int>(0)

        init(reply: @escaping @Sendable ([UInt8]) -> [UInt8]?, tcpReply: @escaping @Sendable ([UInt8]) -> [UInt8]? = { _ in nil }) throws {
            let pair = try LoopbackSocketPair.bind(nonBlocking: false, backlog: 16).get()
            (udp, tcp, port) = (pair.udp, pair.tcp, Int(pair.port))
            let (udp, tcp) = (self.udp, self.tcp)
            Thread.startNamed("test-ns") { [self] in
                let started = monotonicMicroseconds()
                var buffer = [UInt8](repeating: 0, count: 65_535)
                while !stopped.load(ordering: .acquiring), monotonicMicroseconds() - started < 30_000_000 {
                    var fds = [pollfd(fd: udp, events: Int16(POLLIN), revents: 0), pollfd(fd: tcp, events: Int16(POLLIN), revents: 0)]
                    guard poll(&fds, 2, 50) > 0 else { continue }
                    if fds[0].revents != 0 {
                        var from = sockaddr_storage()
                        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        let count = withUnsafeMutablePointer(to: &from) { pointer in
                            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, &buffer, buffer.count, 0, $0, &length) }
                        }
                        if count > 0 {
                            queries.add(1, ordering: .relaxed)
                            if let answer = reply(Array(buffer.prefix(count))) {
                                _ = withUnsafePointer(to: &from) { pointer in
                                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(udp, answer, answer.count, 0, $0, length) }
                                }
                            }
                        }
                    }
                    if fds[1].revents != 0 {
                        let connection = accept(tcp, nil, nil)
                        guard connection >= 0 else { continue }
                        let deadline = monotonicMicroseconds() + 2_000_000
                        if let prefix = DeadlineSocket.receiveExactly(connection, 2, deadline: deadline),
                           let query = DeadlineSocket.receiveExactly(connection, Int(prefix[0]) << 8 | Int(prefix[1]), deadline: deadline),
                           let answer = tcpReply(query) {
                            _ = DeadlineSocket.sendAll(connection, [UInt8(answer.count >> 8), UInt8(answer.count & 0xFF)] + answer, deadline: deadline)
                        }
                        close(connection)
                    }
                }
                close(udp)
                close(tcp)
            }
        }

        func stop() { stopped.store(true, ordering: .releasing) }

        var upstream: DNS64Server.Upstream { DNS64Server.Upstream(address: "127.0.0.1", family: 4, port: port) }
    }

    /// A zone as dns64_upstream.py has it: v4only.test A 127.0.0.1 (NODATA with a SOA for AAAA),
    /// txt.test TXT; NXDOMAIN for the rest.
    static func zone(_ query: [UInt8]) -> [UInt8]? {
        guard let message = try? DNSMessage.decode(query), let question = message.questions.first,
              let name = try? DNSMessage.encodeName(question.name) else { return nil }
        let known = ["v4only.test.", "txt.test."].contains(question.name.lowercased())
        var response = DNSMessageWriter(id: message.id, flags: 0x8180 | (known ? 0 : 3), question: (name, question.type, question.dnsClass))
        if question.name.lowercased() == "v4only.test.", question.type == 1 {
            response.answers = [.init(name: name, type: 1, ttl: 120, data: [127, 0, 0, 1])]
        } else if question.name.lowercased() == "txt.test.", question.type == 16 {
            response.answers = [.init(name: name, type: 16, ttl: 120, data: [4] + Array("text".utf8))]
        } else if let zone = try? DNSMessage.encodeName("test."), let ns = try? DNSMessage.encodeName("ns.test."), let admin = try? DNSMessage.encodeName("admin.test.") {
            response.authority = [.init(name: zone, type: 6, ttl: 300, data: ns + admin + [0, 0, 0, 1, 0, 0, 0, 60, 0, 0, 0, 60, 0, 0, 0, 60, 0, 0, 0, 60])]
        }
        return response.bytes
    }

    /// `name`'s `type` asked of the DNS64 over UDP (or TCP), its decoded answer and the seconds it took.
    static func ask(_ server: DNS64Server, _ name: String, type: UInt16 = 28, tcp: Bool = false, timeout: Int64 = 6_000_000) throws -> (DNSMessage, Double) {
        let query = try DNSMessage.query(id: 0x4242, name: name, type: type, dnsClass: 1, recursionDesired: true)
        let started = monotonicMicroseconds()
        var timing = DNSExchange.Timing()
        let result = DNSExchange(deadline: started + timeout).exchange(query: query, address: "127.0.0.1", family: 4, port: Int(server.port), tcp: tcp, timing: &timing)
        let seconds = Double(monotonicMicroseconds() - started) / 1e6
        switch result {
        case .success(let bytes): return (try DNSMessage.decode(bytes), seconds)
        case .failure(let failure): throw AskFailure(message: "\(failure.message) after \(seconds) s")
        }
    }

    struct AskFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func server(_ upstreams: [Nameserver]) throws -> DNS64Server {
        let server = try DNS64Server(upstreams: upstreams.map(\.upstream))
        server.start()
        return server
    }

    /// A first upstream that never answers costs its one try: the A round goes to the upstream
    /// that answered the AAAA round, and the name gets its synthesized AAAA (not NODATA).
    @Test func aDeadFirstUpstreamIsAskedOncePerQuery() throws {
        let dead = try Nameserver(reply: { _ in nil })
        let good = try Nameserver(reply: Self.zone)
        defer { dead.stop(); good.stop() }
        let server = try Self.server([dead, good])
        defer { server.stop() }
        let (answer, seconds) = try Self.ask(server, "v4only.test")
        #expect(answer.rcode == 0 && answer.answers.map(\.text) == ["v4only.test.\t60\tIN\tAAAA\t64:ff9b::7f00:1"], "\(answer.answers.map(\.text)) \(answer.rcode)")
        #expect(seconds < 3.5, "one try of 2 s on the dead upstream, then the good one: \(seconds) s")
        #expect(dead.queries.load(ordering: .relaxed) == 1, "the dead upstream was asked \(dead.queries.load(ordering: .relaxed)) times")
    }

    /// A reply shorter than a header, one that does not decode, SERVFAIL and REFUSED are that
    /// upstream's failure: the next is asked, and the answer is synthesized from it.
    @Test func anUnusableReplyGoesOnToTheNextUpstream() throws {
        let unusable: [(String, @Sendable ([UInt8]) -> [UInt8]?)] = [
            ("1 byte", { _ in [0x42] }),
            ("12 bytes of header echoing the id, a question count it lacks", { query in Array(query.prefix(2)) + [0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0] }),
            ("SERVFAIL", { query in Self.zone(query).map { var r = $0; r[3] = (r[3] & 0xF0) | 2; return r } }),
            ("REFUSED", { query in Self.zone(query).map { var r = $0; r[3] = (r[3] & 0xF0) | 5; return r } }),
        ]
        for (what, reply) in unusable {
            let bad = try Nameserver(reply: reply)
            let good = try Nameserver(reply: Self.zone)
            defer { bad.stop(); good.stop() }
            let server = try Self.server([bad, good])
            defer { server.stop() }
            let (answer, seconds) = try Self.ask(server, "v4only.test")
            #expect(answer.rcode == 0 && answer.answers.map(\.text) == ["v4only.test.\t60\tIN\tAAAA\t64:ff9b::7f00:1"], "\(what): \(answer.answers.map(\.text)) rcode \(answer.rcode)")
            #expect(seconds < 1.5, "\(what): \(seconds) s")
        }
        // Every upstream SERVFAIL: the client gets SERVFAIL.
        let failing = try Nameserver(reply: { query in Self.zone(query).map { var r = $0; r[3] = (r[3] & 0xF0) | 2; return r } })
        defer { failing.stop() }
        let server = try Self.server([failing])
        defer { server.stop() }
        #expect(try Self.ask(server, "txt.test", type: 16).0.rcode == 2)
    }

    /// A truncated UDP reply whose TCP answer is empty: the truncated reply is relayed (TC set,
    /// the client asks again over TCP), not SERVFAIL.
    @Test func anEmptyTCPAnswerFallsBackToTheTruncatedOne() throws {
        let truncating = try Nameserver(reply: { query in
            guard var reply = Self.zone(query) else { return nil }
            reply[2] |= 0x02
            // The header with TC and one question, no records: what a server sends when the answer does not fit.
            return Array(reply.prefix(4)) + [0, 1, 0, 0, 0, 0, 0, 0] + Array(query[12...])
        }, tcpReply: { _ in [] })
        defer { truncating.stop() }
        let server = try Self.server([truncating])
        defer { server.stop() }
        let (answer, _) = try Self.ask(server, "txt.test", type: 16)
        #expect(answer.rcode == 0 && answer.flags & 0x0200 != 0, "rcode \(answer.rcode) flags \(String(answer.flags, radix: 16))")
    }

    /// 64 idle TCP connections leave UDP its slots, and a new TCP connection is served: past
    /// `maxTCPConnections` the connection idle the longest is closed.
    @Test func idleTCPConnectionsDoNotStarveTheDNS64() throws {
        let good = try Nameserver(reply: Self.zone)
        defer { good.stop() }
        let server = try Self.server([good])
        defer { server.stop() }
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<DNS64Server.maxInFlight {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0, var address = NumericSocketAddress("127.0.0.1", family: 4, port: Int(server.port)), address.connect(fd) == 0 else {
                Issue.record("connect: \(String(cString: strerror(errno)))")
                if fd >= 0 { close(fd) }
                return
            }
            idle.append(fd)
        }
        // Let the listener accept them all.
        Thread.sleep(forTimeInterval: 0.5)
        let (udp, _) = try Self.ask(server, "v4only.test", timeout: 2_000_000)
        #expect(udp.rcode == 0 && udp.answers.count == 1, "UDP answered beside 64 idle TCP connections")
        let (tcp, _) = try Self.ask(server, "v4only.test", tcp: true, timeout: 2_000_000)
        #expect(tcp.rcode == 0 && tcp.answers.count == 1, "a new TCP connection is served")
        // The oldest idle connection was closed (it reads its end), the newest stays open.
        var byte: UInt8 = 0
        #expect(DeadlineSocket.wait(idle[0], events: Int16(POLLIN), deadline: monotonicMicroseconds() + 1_000_000) && recv(idle[0], &byte, 1, 0) == 0)
        #expect(!DeadlineSocket.wait(idle[idle.count - 1], events: Int16(POLLIN), deadline: monotonicMicroseconds() + 200_000))
    }
}
