import CLinkShim
import Foundation
import Synchronization
import SondeCore
#if canImport(Glibc)
import Glibc
#endif

/// One run's emulated link, from `start` to `stop`: the namespace and its TUNs (`LinkNamespace`)
/// and the emulator thread between them (`LinkEmulatorThread`).
///
/// How the checked code gets onto the link: a thread calls `enter()`, and from then on every
/// socket it opens, and every thread or process it creates (libcurl's resolver threads, a
/// `posix_spawn`ed command), lives in the run's namespace, where the only way out is the emulated
/// link; `leave()` brings the thread back. Other threads of sonde (the recorder, the terminal,
/// the emulator itself) stay in the host's namespace. Call `enter` only on a thread you own (a
/// dedicated engine thread, never one of Swift concurrency's pool threads, which other tasks share).
///
/// Where the namespace reaches (`reach` also covers DNS: a process in the namespace reads the
/// host's /etc/resolv.conf, and a resolver on 127.0.0.0/8 is reached by the loopback path, any
/// other by forwarding). Under `nat64` names go to the link's DNS64 instead (`DNS64Server`,
/// `[fd53:6f6e:6465::53]:53` inside, the host's resolvers its upstreams): `enter()` also moves the
/// thread into the link's mount namespace, where /etc/resolv.conf names it (`LinkResolvConf`). With `.anywhere` the host forwards and masquerades the namespace's
/// traffic (`LinkForwarding`); when that cannot be set up (no nftables) the session still starts
/// and says why in `forwardingProblem`.
///
/// Threading: `start` and `stop` from any thread, in the host's network namespace; `stop` is
/// idempotent and also runs on deinit.
public final class LinkSession: @unchecked Sendable {
    public let profile: LinkProfile
    public let plan: LinkAddressPlan
    /// The host's forwarding and NAT for this run, or nil (loopback only).
    public let forwarding: LinkForwarding?
    /// Why only the host's loopback (127.0.0.0/8) is reachable across the link although
    /// `.anywhere` was asked for: one sentence to show the user; nil otherwise.
    public let forwardingProblem: String?
    private let namespace: LinkNamespace
    private let thread: LinkEmulatorThread
    /// The process's namespace (its main thread's), for `leave()`.
    private let original: Int32
    /// Under `nat64`: the DNS64, the link's mount namespace (its resolv.conf) and the process's, for `leave()`.
    private let dns64: DNS64Server?
    private let mountNamespace: Int32?
    private let originalMount: Int32?
    private let lock = Mutex(())
    private var stopped: (down: LinkCounters, up: LinkCounters, problem: String?)?

    private init(profile: LinkProfile, namespace: LinkNamespace, forwarding: LinkForwarding?, forwardingProblem: String?,
                 thread: LinkEmulatorThread, original: Int32, resolver: LinkResolver?) {
        self.dns64 = resolver?.server
        self.mountNamespace = resolver?.mountNamespace
        self.originalMount = resolver?.originalMount
        self.profile = profile
        self.plan = namespace.plan
        self.forwarding = forwarding
        self.forwardingProblem = forwardingProblem
        self.namespace = namespace
        self.thread = thread
        self.original = original
    }

    /// Creates the namespace and devices for this process and starts the emulator.
    /// - Parameters:
    ///   - removeStale: first remove what killed runs left (`LinkNamespace.removeStale`).
    ///   - reach: `.anywhere` (the default) also sets up forwarding and NAT to every destination
    ///     the host reaches; `.loopbackOnly` changes nothing on the host beyond the TUN (enough for
    ///     targets and resolvers on 127.0.0.0/8).
    public static func start(profile: LinkProfile, tuning: LinkTuning = LinkTuning(),
                             removeStale: Bool = true, reach: LinkReach = .anywhere) throws(LinkError) -> LinkSession {
        if let problem = LinkNamespace.privilegeProblem() { throw problem }
        if removeStale { LinkNamespace.removeStale() }
        // `leave()` returns to the process's namespace (its main thread's, which never enters a link).
        let original = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        guard original >= 0 else { throw LinkError.setup("opening the process's network namespace", code: -errno) }
        let pid = getpid()
        let instance = instances.add(1, ordering: .relaxed).oldValue
        // On a thread of its own, which ends in the namespace it started in (the host's).
        typealias Made = (namespace: LinkNamespace, forwarding: LinkForwarding?, problem: String?)
        let made: Result<Made, LinkError> = onOwnThread { () -> Result<Made, LinkError> in
            let namespace: LinkNamespace
            do throws(LinkError) {
                namespace = try LinkNamespace.create(pid: pid, instance: instance, tunQueuePackets: tuning.tunQueuePackets,
                                                     nat64: profile.nat64)
            } catch { return .failure(error) }
            guard reach == .anywhere else { return .success((namespace, nil, nil)) }
            do throws(LinkError) {
                return .success((namespace, try LinkForwarding.install(plan: namespace.plan), nil))
            } catch {
                return .success((namespace, nil, "only 127.0.0.0/8 is reachable across the link: \(error.message)"))
            }
        }
        let parts: Made
        switch made {
        case let .success(value): parts = value
        case let .failure(error):
            close(original)
            throw error
        }
        var resolver: LinkResolver?
        do throws(LinkError) {
            let plan = parts.namespace.plan
            if profile.nat64 { resolver = try LinkResolver.start(plan: plan) }
            let translator = profile.nat64
                ? NAT64Translator(client6: LinkAddressPlan.clientAddress6, client4: LinkAddressPlan.bytes(plan.clientAddress),
                                  router4: LinkAddressPlan.bytes(plan.hostAddress), resolver6: LinkAddressPlan.resolverAddress6,
                                  resolverPort4: resolver?.server.port ?? 0, mtu4: Int(LinkAddressPlan.nat64HostMTU) + 20)
                : nil
            let thread = try LinkEmulatorThread(host: parts.namespace.hostDescriptor, client: parts.namespace.clientDescriptor,
                                                profile: profile, seed: profile.seed, tuning: tuning, translator: translator)
            thread.start()
            return LinkSession(profile: profile, namespace: parts.namespace, forwarding: parts.forwarding, forwardingProblem: parts.problem,
                               thread: thread, original: original, resolver: resolver)
        } catch {
            resolver?.close()
            parts.forwarding?.remove()
            parts.namespace.destroy()
            close(original)
            throw error
        }
    }

    /// Moves the calling thread into the run's namespace (see the type), and under `nat64` into
    /// the link's mount namespace too (its resolv.conf; the thread's working directory is kept).
    public func enter() throws(LinkError) {
        if let mountNamespace {
            let mounted = sonde_link_setns_mount(mountNamespace)
            guard mounted == 0 else { throw LinkError.setup("entering \(plan.namespaceName)'s mount namespace", code: mounted) }
        }
        let result = sonde_link_setns_net(namespace.namespaceDescriptor)
        guard result == 0 else {
            if let originalMount { _ = sonde_link_setns_mount(originalMount) }
            throw LinkError.setup("entering \(plan.namespaceName)", code: result)
        }
    }

    /// Moves the calling thread back to the process's namespace. A thread that entered must leave
    /// before it hands work to other threads' pools: a thread it creates (a dispatch or Swift
    /// concurrency worker started on its behalf) would otherwise inherit the link's namespace.
    public func leave() throws(LinkError) {
        let result = sonde_link_setns_net(original)
        guard result == 0 else { throw LinkError.setup("leaving \(plan.namespaceName)", code: result) }
        if let originalMount {
            let mounted = sonde_link_setns_mount(originalMount)
            guard mounted == 0 else { throw LinkError.setup("leaving \(plan.namespaceName)'s mount namespace", code: mounted) }
        }
    }

    /// Under `nat64`: the link's DNS64 as the namespace sees it (`fd53:6f6e:6465::53`), nil otherwise.
    public var dns64Address: String? { dns64 == nil ? nil : LinkAddressPlan.resolverAddressText }

    /// Under `nat64`: the DNS64's upstreams (the host's resolv.conf nameservers at the start), nil otherwise.
    public var dns64Upstreams: [String]? { dns64?.upstreams.map(\.address) }

    /// Runs `body` on a new thread inside the namespace and waits for it; the thread leaves before
    /// it hands the result back. Threads `body` creates (an event loop group, libpcap's socket)
    /// belong to the namespace.
    public func runInside<T: Sendable>(_ body: @escaping @Sendable () -> T) throws(LinkError) -> T {
        let result: Result<T, LinkError> = Self.onOwnThread { [self] () -> Result<T, LinkError> in
            do throws(LinkError) { try enter() } catch { return .failure(error) }
            let value = body()
            do throws(LinkError) { try leave() } catch { return .failure(error) }
            return .success(value)
        }
        return try result.get()
    }

    /// Starts `arguments` (looked up in PATH) inside the namespace, with this process's
    /// environment and standard streams, from a thread of its own that enters the namespace
    /// first. Returns its pid.
    public func spawn(_ arguments: [String]) throws(LinkError) -> pid_t {
        guard let program = arguments.first else { throw LinkError(.setup, "no command to run") }
        let result: Result<pid_t, LinkError> = Self.onOwnThread { [self] () -> Result<pid_t, LinkError> in
            do throws(LinkError) { try enter() } catch { return .failure(error) }
            let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            // The command starts with no signal blocked and the usual ones at their defaults: this
            // thread (like every Foundation thread) blocks nearly all signals, and sonde ignores
            // SIGPIPE; both would survive exec (a shell's `wait` would then never return).
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&defaults, signal) }
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
            var pid: pid_t = 0
            let code = posix_spawnp(&pid, program, nil, &attributes, argv, environ)
            guard code == 0 else { return .failure(LinkError(.setup, "cannot start \(program): \(String(cString: strerror(code)))")) }
            return .success(pid)
        }
        return try result.get()
    }

    /// Stops the emulator, removes the namespace and devices, and returns the counters of each
    /// direction, the TUN devices' drops included (and a problem of the emulator thread, if it had
    /// one). Idempotent.
    @discardableResult
    public func stop() -> (down: LinkCounters, up: LinkCounters, problem: String?) {
        lock.withLock { _ in
            if let stopped { return stopped }
            var result = thread.stop()
            // Before the TUNs go: what the kernel dropped at them is the link's loss too.
            let drops = Self.onOwnThread { [namespace, original] in namespace.deviceDrops(hostNamespace: original) }
            result.down.droppedByTUNQueue += drops.host?.transmit ?? 0
            result.down.droppedByTUNWrite += drops.client?.receive ?? 0
            result.up.droppedByTUNQueue += drops.client?.transmit ?? 0
            result.up.droppedByTUNWrite += drops.host?.receive ?? 0
            if drops.host == nil || drops.client == nil {
                let unread = "the TUN devices' drop counters could not be read (/proc/thread-self/net/dev)"
                result.problem = result.problem.map { $0 + "; " + unread } ?? unread
            }
            // Forwarding goes before the TUNs: nothing leaves un-NATed in between.
            forwarding?.remove()
            namespace.destroy()
            close(original)
            dns64?.stop()
            if let mountNamespace { close(mountNamespace) }
            if let originalMount { close(originalMount) }
            stopped = result
            return result
        }
    }

    /// When the emulator started (wall clock; its outages count from it), nil before it did.
    public var startedAt: Timestamp? { thread.startedAt }

    /// The emulator's counters per connection, once `stop` returned (empty before).
    public var connections: [LinkConnectionCounters] { thread.connections }

    deinit { stop() }

    /// Runs `body` on a new thread and waits for it: namespace changes stay on that thread.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Thread.startNamed("sonde-link-ns") {
            box.value = body()
            done.signal()
        }
        // The semaphore orders the write before this read; the thread always sets the value.
        while true {
            done.wait()
            if let value = box.value { return value }
        }
    }
}

/// Links started by this process so far: each gets its own names and addresses (`LinkAddressPlan`).
private let instances = Atomic<Int>(0)

/// Where a link's namespace reaches (`LinkSession.start`).
public enum LinkReach: Sendable, Equatable {
    /// Every destination the host reaches, by the host's routes, masqueraded as the host
    /// (`LinkForwarding`), and the host's loopback.
    case anywhere
    /// The host's loopback (127.0.0.0/8) only: nothing on the host changes but the TUN.
    case loopbackOnly
}

/// A value handed from one thread to the one waiting for it (`LinkSession.onOwnThread`).
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// A `nat64` link's name resolution: its DNS64 (started) and the mount namespace whose
/// /etc/resolv.conf names it, with the process's mount namespace to return to.
private struct LinkResolver {
    var server: DNS64Server
    var mountNamespace: Int32
    var originalMount: Int32

    /// Reads the host's resolv.conf (the upstreams), starts the DNS64 and makes the mount namespace.
    static func start(plan: LinkAddressPlan) throws(LinkError) -> LinkResolver {
        let conf = LinkResolvConf.readHost()
        let server = try DNS64Server(upstreams: conf.upstreams)
        let originalMount = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)
        guard originalMount >= 0 else {
            server.stop()
            throw LinkError.setup("opening the process's mount namespace", code: -errno)
        }
        let mountNamespace: Int32
        do throws(LinkError) {
            mountNamespace = try conf.mountNamespace(scratch: "/run/\(plan.namespaceName).resolv.conf")
        } catch {
            server.stop()
            Glibc.close(originalMount)
            throw error
        }
        server.start()
        return LinkResolver(server: server, mountNamespace: mountNamespace, originalMount: originalMount)
    }

    func close() {
        server.stop()
        Glibc.close(mountNamespace)
        Glibc.close(originalMount)
    }
}
