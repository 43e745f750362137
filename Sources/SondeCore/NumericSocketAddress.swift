import Glibc

/// A `sockaddr_in` or `sockaddr_in6` for a numeric address (no resolver), in a `sockaddr_storage`,
/// and its length for `connect`/`bind`. Used where sonde opens a raw socket itself: serve's dns
/// prober and the TLS question asked of a loopback port when a URL has no scheme.
public struct NumericSocketAddress {
    public var storage: sockaddr_storage
    /// The length of the address inside `storage` (`sockaddr_in` or `sockaddr_in6`).
    public let length: socklen_t
    /// AF_INET or AF_INET6.
    public let family: Int32

    /// nil when `address` is not a numeric address of `family` (4 or 6) or `port` is not 0–65,535.
    public init?(_ address: String, family: Int, port: Int) {
        guard (0...65_535).contains(port) else { return nil }
        var storage = sockaddr_storage()
        let ok: Bool = withUnsafeMutablePointer(to: &storage) { pointer in
            if family == 6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    v6.pointee.sin6_family = sa_family_t(AF_INET6)
                    v6.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                    return inet_pton(AF_INET6, address, &v6.pointee.sin6_addr) == 1
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                v4.pointee.sin_family = sa_family_t(AF_INET)
                v4.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                return inet_pton(AF_INET, address, &v4.pointee.sin_addr) == 1
            }
        }
        guard ok else { return nil }
        self.storage = storage
        self.family = family == 6 ? AF_INET6 : AF_INET
        length = socklen_t(family == 6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    /// `connect(2)` of `socket` to this address: its return value (errno set on -1).
    public mutating func connect(_ socket: Int32) -> Int32 {
        let length = self.length
        return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, length) } }
    }
}
