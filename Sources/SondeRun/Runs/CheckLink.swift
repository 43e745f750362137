import Foundation
import SondeCore
import SondeLink

/// The emulated link of one check, up from just before the check begins to just after it ends
/// (`CheckDriver`): the run's namespace, its TUN devices and the emulator thread
/// (`LinkSession`), and the link's report form (`LinkUse`).
///
/// How the check's traffic gets onto it: the engines call `enter()` on the thread that opens
/// their sockets (the probe's and resume's dedicated threads; for a soak, the thread that creates
/// its event loops), so every socket, resolver thread and worker process of the check lives in
/// the namespace, whose only way out is the emulator.
///
/// Threading: `start` and `stop` from the driver's task; `enter` from any thread sonde owns.
final class CheckLink: Sendable {
    let session: LinkSession
    /// The profile's name (`lte`, `custom`), stamped on every task that crossed the link.
    let name: String
    /// The link's report form at its start (conditions and seed, no counters yet).
    let started: LinkUse

    private init(session: LinkSession, profile: LinkProfile) {
        self.session = session
        name = profile.name
        started = LinkUse(conditions: profile.conditions, seed: Int64(bitPattern: profile.seed))
    }

    /// The report form of `profile` before its link is up (the run line's `link`).
    static func planned(_ profile: LinkProfile) -> LinkUse {
        LinkUse(conditions: profile.conditions, seed: Int64(bitPattern: profile.seed))
    }

    /// Creates the namespace and starts the emulator. A failure is the check's error (privileges
    /// are checked before the run begins: `privilegeProblem`).
    /// - Parameter endpoints: where the check's flows go. When every one is on the host's loopback
    ///   the link reaches the loopback only, and nothing on the host changes but the TUN; otherwise
    ///   the host forwards and masquerades the link's traffic (`LinkReach.anywhere`).
    static func start(_ profile: LinkProfile, endpoints: [(address: String, port: Int)]) throws(TaskError) -> CheckLink {
        let loopback = !endpoints.isEmpty && endpoints.allSatisfy { $0.address.hasPrefix("127.") }
        do throws(LinkError) {
            let session = try LinkSession.start(profile: profile, reach: loopback ? .loopbackOnly : .anywhere)
            if let problem = session.forwardingProblem { printError("warning: \(problem)") }
            return CheckLink(session: session, profile: profile)
        } catch {
            throw TaskError(code: .localIOError, message: "the emulated link could not be set up: \(error.message)")
        }
    }

    /// What stops a run with `--link` before it begins: the process cannot create namespaces and
    /// TUN devices (one sentence saying what is needed), nil when it can.
    static var privilegeProblem: String? { LinkNamespace.privilegeProblem()?.message }

    /// Moves the calling thread into the link's namespace (see the type).
    func enter() throws(TaskError) {
        do throws(LinkError) { try session.enter() } catch {
            throw TaskError(code: .localIOError, message: "could not enter the emulated link's namespace: \(error.message)")
        }
    }

    /// Moves the calling thread back to the process's namespace. Every thread that entered calls
    /// it before it returns: a Swift concurrency or dispatch worker started from a thread inside
    /// would inherit the link's namespace, and outlive it.
    func leave() {
        do throws(LinkError) { try session.leave() } catch {
            // Cannot happen short of a kernel refusing a namespace it gave: the thread stays inside.
            printError("sonde: could not leave the emulated link's namespace: \(error.message)")
        }
    }

    /// The namespace side's device (`sonde<pid>c…`), where a capture sees the emulated side.
    var device: String { session.plan.clientDevice }

    /// Runs `body` on a new thread inside the link's namespace and waits for it (`LinkSession.runInside`):
    /// threads `body` creates (an event loop group, a thread pool, libpcap's socket) live there too.
    /// Blocks the caller for `body`'s time: give it set-up work of a few milliseconds only.
    func inside<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Result<T, TaskError> {
        do throws(LinkError) { return .success(try session.runInside(body)) } catch {
            return .failure(TaskError(code: .localIOError, message: "could not run inside the emulated link's namespace: \(error.message)"))
        }
    }

    /// Stops the emulator, removes the namespace and devices, and returns the link with its counters.
    func stop() -> LinkUse {
        let ended = session.stop()
        var use = started
        use.down = ended.down
        use.up = ended.up
        use.problem = ended.problem
        use.connections = session.connections
        return use
    }
}
