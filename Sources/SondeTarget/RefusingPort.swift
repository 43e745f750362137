#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port that refuses connections for as long as the target runs: a socket bound to
/// it (without SO_REUSEADDR) and never listening, so a SYN gets a RST and no other process on the
/// machine can bind the port meanwhile. (A port bound and released was taken, in a busy test run,
/// by another test's server, which then answered where a refusal was expected.)
final class RefusingPort: @unchecked Sendable {
    let port: Int
    private var descriptor: Int32

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TargetError("refusing port: socket() failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = descriptor
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw TargetError("refusing port: bind failed: \(reason)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
