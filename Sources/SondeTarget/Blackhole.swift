#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port whose SYNs go unanswered, for connect-timeout tests without `netem`.
///
/// It listens with a backlog of 0, never accepts, and fills its accept queue with its own
/// connections; Linux then drops further SYNs, so a client's connect hangs until its timeout.
final class Blackhole: @unchecked Sendable {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TargetError("blackhole: socket() failed: \(String(cString: strerror(errno)))") }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 0) == 0 else {
            Glibc.close(listener)
            throw TargetError("blackhole: bind/listen failed: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (backlog 0 holds one connection; a second makes sure).
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { continue }
            descriptors.append(client)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        usleep(50_000)
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
        descriptors.removeAll()
    }

    deinit { close() }
}

/// A loopback port with nothing listening on it (bound, then released), for connection-refused checks.
func unusedLoopbackPort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return 9 }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    return ok ? Int(UInt16(bigEndian: address.sin_port)) : 9
}

public struct TargetError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
