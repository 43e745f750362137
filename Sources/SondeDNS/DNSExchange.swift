import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// One DNS query and its response over UDP or TCP (RFC 1035 §4.2; TCP with its two-byte length),
/// as miekg/dns's `Client.Exchange` makes it: dial, write, read until a response with the query's
/// id arrives (a stale one is skipped; one shorter than the 12-byte header fails the exchange). Blocking, with every wait bounded by the deadline (poll);
/// call it from a thread of its own (the dns prober's, the link's DNS64 workers).
public struct DNSExchange {
    /// What the exchange took: the dial (s) and the write-to-response time (s), both set on failure too.
    public struct Timing {
        public var connect = 0.0
        public var request = 0.0

        public init() {}
    }

    public struct Failure: Error {
        public var message: String
    }

    /// Monotonic deadline (µs).
    public let deadline: Int64

    public init(deadline: Int64) { self.deadline = deadline }

    /// The most responses with another id one exchange skips.
    public static let maxStale = 64

    /// Sends `query` (whose first two bytes are its id) to `address`:`port` and returns the
    /// response's bytes. `timing` is filled as blackbox fills its phases: on a failure, the whole
    /// time is `connect` and `request` is 0.
    public func exchange(query: [UInt8], address: String, family: Int, port: Int, tcp: Bool, timing: inout Timing) -> Result<[UInt8], Failure> {
        let started = monotonicMicroseconds()
        func failed(_ message: String) -> Result<[UInt8], Failure> {
            timing.connect = Double(monotonicMicroseconds() - started) / 1e6
            timing.request = 0
            return .failure(Failure(message: message))
        }
        let domain = family == 6 ? AF_INET6 : AF_INET
        let descriptor = socket(domain, Int32((tcp ? SOCK_STREAM : SOCK_DGRAM).rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return failed("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard var target = NumericSocketAddress(address, family: family, port: port) else { return failed("bad address \(address)") }
        let connected = target.connect(descriptor)
        if connected != 0 {
            guard errno == EINPROGRESS else { return failed("dial: \(String(cString: strerror(errno)))") }
            guard DeadlineSocket.wait(descriptor, events: Int16(POLLOUT), deadline: deadline) else { return failed("dial: i/o timeout") }
            var problem: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &size)
            guard problem == 0 else { return failed("dial: \(String(cString: strerror(problem)))") }
        }
        let requestStarted = monotonicMicroseconds()
        let id = query.count >= 2 ? Array(query[0..<2]) : []
        let framed = tcp ? [UInt8(query.count >> 8), UInt8(query.count & 0xFF)] + query : query
        guard DeadlineSocket.sendAll(descriptor, framed, deadline: deadline) else { return failed("write: \(String(cString: strerror(errno)))") }
        for _ in 0...Self.maxStale {
            let response: [UInt8]
            if tcp {
                guard let prefix = DeadlineSocket.receiveExactly(descriptor, 2, deadline: deadline) else { return failed("read: the connection ended or timed out") }
                guard let body = DeadlineSocket.receiveExactly(descriptor, Int(prefix[0]) << 8 | Int(prefix[1]), deadline: deadline) else {
                    return failed("read: the connection ended or timed out")
                }
                response = body
            } else {
                guard DeadlineSocket.wait(descriptor, events: Int16(POLLIN), deadline: deadline) else { return failed("read: i/o timeout") }
                var buffer = [UInt8](repeating: 0, count: 65_535)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count >= 0 else { return failed("read: \(String(cString: strerror(errno)))") }
                response = Array(buffer.prefix(count))
            }
            // Shorter than a header: no id to match, no message (miekg's unpack fails the exchange so).
            guard response.count >= 12 else { return failed("read: a reply of \(response.count) bytes, shorter than a DNS header") }
            // A response with another id (to an earlier query that timed out) is skipped, as miekg skips it.
            if Array(response[0..<2]) != id { continue }
            timing.connect = Double(requestStarted - started) / 1e6
            timing.request = Double(monotonicMicroseconds() - requestStarted) / 1e6
            return .success(response)
        }
        return failed("read: more than \(Self.maxStale) responses with another id")
    }
}
