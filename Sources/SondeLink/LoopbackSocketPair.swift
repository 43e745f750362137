import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket and a listening TCP socket bound to the same ephemeral port of 127.0.0.1, as a
/// nameserver has them: the link's DNS64 (`DNS64Server`) and the tests' upstream nameservers.
/// Both descriptors are close-on-exec; the caller owns and closes them.
package struct LoopbackSocketPair {
    package let udp: Int32
    package let tcp: Int32
    package let port: UInt16

    /// Why no pair was bound.
    package enum Failure: Error {
        /// `socket(2)` or `bind(2)` of the UDP socket failed: errno.
        case udpSocket(errno: Int32)
        /// Every try's UDP port was taken for TCP.
        case noPortFree(tries: Int)
    }

    /// Binds the pair (a few tries: the UDP port may be taken for TCP) and listens on TCP with
    /// `backlog`; `nonBlocking` makes both descriptors `O_NONBLOCK`.
    package static func bind(nonBlocking: Bool, backlog: Int32, tries: Int = 16) -> Result<LoopbackSocketPair, Failure> {
        for _ in 0..<tries {
            let udp = socketOn(port: 0, type: SOCK_DGRAM, nonBlocking: nonBlocking)
            guard udp.fd >= 0 else { return .failure(.udpSocket(errno: errno)) }
            let tcp = socketOn(port: udp.port, type: SOCK_STREAM, nonBlocking: nonBlocking)
            if tcp.fd >= 0, listen(tcp.fd, backlog) == 0 {
                return .success(LoopbackSocketPair(udp: udp.fd, tcp: tcp.fd, port: udp.port))
            }
            close(udp.fd)
            if tcp.fd >= 0 { close(tcp.fd) }
        }
        return .failure(.noPortFree(tries: tries))
    }

    /// A socket of `type` bound to 127.0.0.1:`port` (0: any), and the port it got; fd -1 on failure
    /// (errno says why).
    package static func socketOn(port: UInt16, type: __socket_type, nonBlocking: Bool) -> (fd: Int32, port: UInt16) {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_INET, Int32(type.rawValue) | flags, 0)
        guard fd >= 0 else { return (-1, 0) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let saved = errno
            close(fd)
            errno = saved
            return (-1, 0)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
