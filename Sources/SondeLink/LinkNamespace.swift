import CLinkShim
#if canImport(Glibc)
import Glibc
#endif

/// One run's network namespace and its two TUN devices: the namespace's `sonde<pid>c`
/// (198.18.x.2/32, up, the default route, `lo` left down) and the host's `sonde<pid>h`
/// (198.18.x.1/32, up, a host route to the namespace's address). `route_localnet=1` on both lets
/// 127.0.0.1 cross them: inside the namespace 127.0.0.1:PORT leaves through the TUN (lo is down, so
/// nothing there is local) and arrives at the host's loopback services, whose replies go back the
/// same way. That path needs no NAT, no forwarding, no nft rule; other destinations are reached by
/// `LinkForwarding`. IPv6 is off in the namespace and on the host TUN.
///
/// The namespace is named `sonde-link-<pid>` by a bind mount under /run/netns (as `ip netns add`
/// does), so `ip netns exec` reaches it (tcpdump on its TUN). The TUNs are not persistent: they go
/// away with their descriptors, so a killed sonde leaves only the named namespace, which
/// `removeStale` removes. Everything is done with system calls (ioctls, unshare, mount): no `ip`,
/// no `nft`.
///
/// Threading: `create` changes the calling thread's namespace while it works and restores it
/// before returning; call it on a thread of its own (`LinkSession.start` does).
public struct LinkNamespace: Sendable {
    public let plan: LinkAddressPlan
    /// The namespace (open, close-on-exec), for `setns`.
    public let namespaceDescriptor: Int32
    /// The host side's TUN (non-blocking).
    public let hostDescriptor: Int32
    /// The namespace side's TUN (non-blocking).
    public let clientDescriptor: Int32

    static let capNetAdmin: Int32 = 12
    static let capSysAdmin: Int32 = 21

    /// What a link needs, in the words of every refusal.
    static let needs = "--link needs root: CAP_NET_ADMIN and CAP_SYS_ADMIN (a network namespace, TUN devices, routes, a bind mount) "
        + "and write access to /dev/net/tun and \(LinkAddressPlan.namespaceDirectory) (root's, or CAP_DAC_OVERRIDE)"

    /// Why this process cannot create a link, or nil when it can: it needs CAP_NET_ADMIN (devices,
    /// routes), CAP_SYS_ADMIN (unshare, mount), and to open /dev/net/tun and create the
    /// namespace's name under /run/netns, which a non-root user with those two capabilities still
    /// cannot (file permissions: CAP_DAC_OVERRIDE, or root). Root has it all unless it was dropped.
    /// The files are checked as the kernel would check this process (`faccessat` with AT_EACCESS).
    public static func privilegeProblem() -> LinkError? {
        var missing: [String] = []
        if sonde_link_has_capability(capNetAdmin) != 1 { missing.append("CAP_NET_ADMIN") }
        if sonde_link_has_capability(capSysAdmin) != 1 { missing.append("CAP_SYS_ADMIN") }
        if faccessat(AT_FDCWD, "/dev/net/tun", R_OK | W_OK, AT_EACCESS) != 0 && errno != ENOENT {
            missing.append("read-write access to /dev/net/tun")
        }
        // /run/netns, or /run where it is to be made.
        let directory = LinkAddressPlan.namespaceDirectory
        let existing = access(directory, F_OK) == 0 ? directory : String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        if !existing.isEmpty, faccessat(AT_FDCWD, existing, W_OK | X_OK, AT_EACCESS) != 0 {
            missing.append("write access to \(existing)")
        }
        guard !missing.isEmpty else { return nil }
        return LinkError(.privileges, needs + "; this process lacks " + missing.joined(separator: ", ") + ". Run sonde as root")
    }

    /// Creates the namespace and devices for process `pid` (see the type). On failure every
    /// part made so far is undone.
    /// - Parameter tunQueuePackets: each TUN's transmit queue (`LinkTuning.tunQueuePackets`).
    /// - Parameter nat64: IPv6 only inside (`LinkAddressPlan.clientAddress6`/128 and `::/0` through
    ///   the TUN, no IPv4 address or route; no link-local address, router solicitation or RA), and
    ///   the host side's MTU 1480 so that every IPv4 packet fits once translated.
    static func create(pid: Int32, instance: Int = 0, tunQueuePackets: Int32 = LinkTuning.defaultTUNQueuePackets,
                       nat64: Bool = false) throws(LinkError) -> LinkNamespace {
        if let problem = privilegeProblem() { throw problem }
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        guard original >= 0 else { throw LinkError.setup("opening this thread's network namespace", code: -errno) }
        defer {
            _ = sonde_link_setns_net(original)
            close(original)
        }
        // The host side goes into the process's namespace (its main thread's, which never enters a
        // link), whatever namespace the calling thread inherited from the thread that made it.
        let process = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        guard process >= 0 else { throw LinkError.setup("opening the process's network namespace", code: -errno) }
        let entered = sonde_link_setns_net(process)
        close(process)
        guard entered == 0 else { throw LinkError.setup("entering the process's network namespace", code: entered) }
        let plan = LinkAddressPlan.choose(pid: pid, instance: instance)
        var undo = Undo()
        do throws(LinkError) {
            // The host side.
            let host = try check("creating TUN \(plan.hostDevice)", sonde_link_tun_open(plan.hostDevice))
            undo.descriptors.append(host)
            try check("lengthening \(plan.hostDevice)'s queue", sonde_link_set_tx_queue_length(plan.hostDevice, tunQueuePackets))
            try ProcFiles.writeSysctl("/proc/sys/net/ipv6/conf/\(plan.hostDevice)/disable_ipv6", "1")
            try ProcFiles.writeSysctl("/proc/sys/net/ipv4/conf/\(plan.hostDevice)/route_localnet", "1")
            try check("giving \(plan.hostDevice) its address", sonde_link_set_address(plan.hostDevice, plan.hostAddress))
            if nat64 { try check("setting \(plan.hostDevice)'s MTU", sonde_link_set_mtu(plan.hostDevice, LinkAddressPlan.nat64HostMTU)) }
            try check("setting \(plan.hostDevice) up", sonde_link_set_up(plan.hostDevice))
            try check("routing \(LinkAddressPlan.text(plan.clientAddress)) to \(plan.hostDevice)",
                      sonde_link_add_route(plan.hostDevice, plan.clientAddress, 32))
            // The namespace, named by a bind mount.
            try check("creating a network namespace", sonde_link_unshare_net())
            if nat64 {
                // The TUN made below inherits these: no link-local address, no router solicitation, no RA.
                for (name, value) in [("addr_gen_mode", "1"), ("router_solicitations", "0"), ("accept_ra", "0"), ("accept_dad", "0")] {
                    try ProcFiles.writeSysctl("/proc/sys/net/ipv6/conf/default/\(name)", value)
                }
            } else {
                try ProcFiles.writeSysctl("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1")
                try ProcFiles.writeSysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1")
            }
            let namespace = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
            guard namespace >= 0 else { throw LinkError.setup("opening the new namespace", code: -errno) }
            undo.descriptors.append(namespace)
            try name(namespace: namespace, plan: plan, undo: &undo)
            // The namespace side.
            let client = try check("creating TUN \(plan.clientDevice)", sonde_link_tun_open(plan.clientDevice))
            undo.descriptors.append(client)
            try check("lengthening \(plan.clientDevice)'s queue", sonde_link_set_tx_queue_length(plan.clientDevice, tunQueuePackets))
            if nat64 {
                try check("setting \(plan.clientDevice) up", sonde_link_set_up(plan.clientDevice))
                try check("giving \(plan.clientDevice) its IPv6 address", sonde_link_set_address6(plan.clientDevice, LinkAddressPlan.clientAddress6, 128))
                try check("routing the namespace's IPv6 default route to \(plan.clientDevice)",
                          sonde_link_add_route6(plan.clientDevice, [UInt8](repeating: 0, count: 16), 0))
            } else {
                try ProcFiles.writeSysctl("/proc/sys/net/ipv4/conf/\(plan.clientDevice)/route_localnet", "1")
                try check("giving \(plan.clientDevice) its address", sonde_link_set_address(plan.clientDevice, plan.clientAddress))
                try check("setting \(plan.clientDevice) up", sonde_link_set_up(plan.clientDevice))
                try check("routing the namespace's default route to \(plan.clientDevice)", sonde_link_add_route(plan.clientDevice, 0, 0))
            }
            return LinkNamespace(plan: plan, namespaceDescriptor: namespace, hostDescriptor: host, clientDescriptor: client)
        } catch {
            undo.run()
            throw error
        }
    }

    /// The kernel's drop counters of both TUNs (nil for one that cannot be read). Call it on a
    /// thread of its own (`LinkSession.onOwnThread`): it enters the namespace to read the namespace
    /// side's (/proc/thread-self/net/dev answers for the thread's namespace).
    /// - Parameter hostNamespace: the host's namespace (open), where the host side's TUN is.
    func deviceDrops(hostNamespace: Int32) -> (host: DeviceDrops?, client: DeviceDrops?) {
        let host = sonde_link_setns_net(hostNamespace) == 0 ? DeviceDrops.read(device: plan.hostDevice) : nil
        let client = sonde_link_setns_net(namespaceDescriptor) == 0 ? DeviceDrops.read(device: plan.clientDevice) : nil
        return (host, client)
    }

    /// Closes the devices and the namespace's descriptor and removes its name: the TUNs vanish
    /// with their descriptors (and the host's route and sysctl with its TUN), the namespace with
    /// its last reference. Idempotent per value only: call once.
    func destroy() {
        close(hostDescriptor)
        close(clientDescriptor)
        close(namespaceDescriptor)
        Self.removeName(plan.namespacePath)
    }

    /// What SIGKILLed runs left: namespaces `sonde-link-<pid>` under /run/netns whose process is
    /// gone (each unmounted and its file removed), and their nft tables `sonde_link_<pid>` with the
    /// forwarding flags they guard (`LinkForwarding.removeStale`: handed to a live run or restored).
    /// Returns the names of the namespaces and tables removed. TUN devices cannot outlive their
    /// process (they are not persistent), and their routes and sysctls go with them. Call it in the
    /// host's network namespace.
    @discardableResult
    public static func removeStale() -> [String] {
        let tables = LinkForwarding.removeStale()
        return removeStaleNamespaces() + tables
    }

    private static func removeStaleNamespaces() -> [String] {
        guard let directory = opendir(LinkAddressPlan.namespaceDirectory) else { return [] }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = LinkAddressPlan.pid(inNamespaceName: name) else { continue }
            if isAlive(pid) { continue }
            names.append(name)
        }
        closedir(directory)
        for name in names { removeName(LinkAddressPlan.namespaceDirectory + "/" + name) }
        return names
    }

    // MARK: Helpers

    /// Whether process `pid` runs: it exists and is not a zombie (a killed sonde whose parent has
    /// not reaped it yet is gone for this purpose).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = ProcFiles.read("/proc/\(pid)/stat", maxBytes: 4096),
              let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count else { return true }
        let state = stat[close + 2]
        return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
    }

    private static func name(namespace: Int32, plan: LinkAddressPlan, undo: inout Undo) throws(LinkError) {
        if mkdir(LinkAddressPlan.namespaceDirectory, 0o755) != 0 && errno != EEXIST {
            throw LinkError.setup("creating \(LinkAddressPlan.namespaceDirectory)", code: -errno)
        }
        let file = open(plan.namespacePath, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o444)
        guard file >= 0 else { throw LinkError.setup("creating \(plan.namespacePath)", code: -errno) }
        close(file)
        undo.paths.append(plan.namespacePath)
        try check("naming the namespace \(plan.namespaceName)", sonde_link_bind_mount("/proc/thread-self/ns/net", plan.namespacePath))
    }

    private static func removeName(_ path: String) {
        _ = sonde_link_unmount(path)
        unlink(path)
    }

    @discardableResult
    private static func check(_ step: String, _ result: Int32) throws(LinkError) -> Int32 {
        guard result >= 0 else { throw LinkError.setup(step, code: result) }
        return result
    }

    /// What `create` has made so far, undone in reverse when a later step fails.
    private struct Undo {
        var descriptors: [Int32] = []
        var paths: [String] = []

        func run() {
            for descriptor in descriptors.reversed() { close(descriptor) }
            for path in paths.reversed() { LinkNamespace.removeName(path) }
        }
    }
}
