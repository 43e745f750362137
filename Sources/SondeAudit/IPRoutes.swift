import Foundation

/// Which IP families the calling thread's network namespace can route to: a UDP socket is
/// connected (no packet is sent; the kernel only looks the route up) to an IPv4 documentation
/// address (192.0.2.1, RFC 5737) and to the NAT64 well-known prefix's image of it
/// (64:ff9b::c000:201, RFC 6052). Inside `--link nat64` (an IPv6-only link) the first has no
/// route (ENETUNREACH) and the second does; on a dual-stack host both do. Call it on the thread
/// that entered the link. Stateless; no network traffic.
struct IPRoutes: Sendable, Equatable {
    var ipv4: Bool
    var ipv6: Bool

    /// IPv6 routes and no IPv4 one: App Review's kind of network.
    var isIPv6Only: Bool { ipv6 && !ipv4 }

    static func current() -> IPRoutes {
        IPRoutes(ipv4: routes(family: AF_INET, address: "192.0.2.1"), ipv6: routes(family: AF_INET6, address: "64:ff9b::c000:201"))
    }

    private static func routes(family: Int32, address: String) -> Bool {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if family == AF_INET {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(9).bigEndian
            guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else { return false }
            return withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
        }
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = UInt16(9).bigEndian
        guard inet_pton(AF_INET6, address, &sin6.sin6_addr) == 1 else { return false }
        return withUnsafePointer(to: &sin6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } } == 0
    }
}
