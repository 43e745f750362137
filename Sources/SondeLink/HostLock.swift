import CLinkShim
#if canImport(Glibc)
import Glibc
#endif

/// The host-wide lock under which sonde processes change the host's forwarding sysctls and nft
/// tables (`LinkForwarding`): an exclusive `flock` on the /run/netns directory, which every run
/// creates anyway (so no lock file is left behind). Concurrent runs thereby see each other's
/// tables whole when they hand devices over or restore them.
///
/// Threading: any thread; the lock is held by the open file description, so two threads of one
/// process exclude each other too.
enum HostLock {
    /// How long `withLock` waits for another process to finish (bounded: 10 s in 5 ms steps).
    static let maxWaitNs: Int64 = 10_000_000_000

    /// Runs `body` holding the lock; a LinkError when it cannot be taken within `maxWaitNs`.
    static func withLock<T>(_ body: () throws(LinkError) -> T) throws(LinkError) -> T {
        if mkdir(LinkAddressPlan.namespaceDirectory, 0o755) != 0 && errno != EEXIST {
            throw LinkError.setup("creating \(LinkAddressPlan.namespaceDirectory)", code: -errno)
        }
        let descriptor = open(LinkAddressPlan.namespaceDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LinkError.setup("opening \(LinkAddressPlan.namespaceDirectory) to lock it", code: -errno) }
        defer { close(descriptor) }
        let deadline = sonde_link_now() + maxWaitNs
        while true {
            let result = sonde_link_flock(descriptor, 1)
            if result == 0 { break }
            guard result == -EWOULDBLOCK || result == -EINTR else { throw LinkError.setup("locking \(LinkAddressPlan.namespaceDirectory)", code: result) }
            guard sonde_link_now() < deadline else {
                throw LinkError(.setup, "another sonde held the lock on \(LinkAddressPlan.namespaceDirectory) for more than 10 s; try again")
            }
            usleep(5_000)
        }
        defer { _ = sonde_link_flock(descriptor, 0) }
        return try body()
    }
}
