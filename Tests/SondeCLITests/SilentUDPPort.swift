import Foundation

/// A UDP port that takes datagrams and never answers (a QUIC handshake to it can only time out),
/// and counts what arrived: the tests' evidence of whether sonde sent anything there.
final class SilentUDPPort {
    let address: String
    let port: Int
    private let socket: Int32

    /// Binds `address` (a loopback address) on a port the system picks.
    init(address: String = "127.0.0.1") throws {
        self.address = address
        let fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Nginx.FixtureError(message: "no UDP socket: errno \(errno)") }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = 0
        inet_pton(AF_INET, address, &sin.sin_addr)
        let bound = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, named == 0 else {
            close(fd)
            throw Nginx.FixtureError(message: "cannot bind UDP on \(address): errno \(errno)")
        }
        socket = fd
        port = Int(UInt16(bigEndian: sin.sin_port))
    }

    deinit { close(socket) }

    /// The datagrams that arrived since the last call (read without waiting; at most 10,000).
    func datagramsReceived() -> Int {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var count = 0
        while count < 10_000, recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 { count += 1 }
        return count
    }
}
