import Foundation
import SondeCore
import SondeSuite
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
public final class CheckLink: Sendable {
    let session: LinkSession
    /// The profile's name (`lte`, `custom`), stamped on every task that crossed the link.
    public let name: String
    /// The link's report form at its start (conditions and seed, no counters yet).
    public let started: LinkUse

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
    /// - Parameter targets: the check's URLs and `--resolve` pins. When every host is a literal
    ///   127.0.0.0/8 address, `localhost` or a name pinned to one, the link reaches the loopback
    ///   only, and nothing on the host changes but the TUN; otherwise (a name to resolve, whose
    ///   resolver may be anywhere) the host forwards and masquerades the link's traffic
    ///   (`LinkReach.anywhere`). Nothing is resolved here: a check's names are resolved inside the
    ///   link, across it, so that its DNS phase is the link's.
    static func start(_ profile: LinkProfile, targets: (urls: [String], resolve: [String])) throws(TaskError) -> CheckLink {
        let loopback = reachesLoopbackOnly(urls: targets.urls, resolve: targets.resolve)
        do throws(LinkError) {
            let session = try LinkSession.start(profile: profile, reach: loopback ? .loopbackOnly : .anywhere)
            if let problem = session.forwardingProblem { printError("warning: \(problem)") }
            return CheckLink(session: session, profile: profile)
        } catch {
            throw TaskError(code: .localIOError, message: "the emulated link could not be set up: \(error.message)")
        }
    }

    /// Whether `urls` need only the host's loopback, decided without resolving anything: each
    /// host is an IPv4 literal in 127.0.0.0/8, `localhost` (answered by libcurl itself or by
    /// /etc/hosts, never a DNS server), or a name that a `resolve` pin (`HOST:PORT:ADDRESS`) sends
    /// to 127.0.0.0/8. False for no URL.
    static func reachesLoopbackOnly(urls: [String], resolve: [String]) -> Bool {
        func isLoopback(_ address: String) -> Bool {
            let parts = address.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (UInt16(part) ?? 256) <= 255
            }
        }
        guard !urls.isEmpty else { return false }
        return urls.allSatisfy { text in
            guard let url = URL(string: text), let host = url.host?.lowercased(), !host.isEmpty else { return false }
            if isLoopback(host) || host == "localhost" { return true }
            let secure = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
            let port = url.port ?? (secure ? 443 : 80)
            return resolve.contains { entry in
                let parts = entry.split(separator: ":", maxSplits: 2).map(String.init)
                return parts.count == 3 && parts[0].lowercased() == host && Int(parts[1]) == port && isLoopback(parts[2])
            }
        }
    }

    /// What stops a run with `--link` before it begins: the process cannot create namespaces and
    /// TUN devices (one sentence saying what is needed), nil when it can.
    static var privilegeProblem: String? { LinkNamespace.privilegeProblem()?.message }

    /// Moves the calling thread into the link's namespace (see the type).
    public func enter() throws(TaskError) {
        do throws(LinkError) { try session.enter() } catch {
            throw TaskError(code: .localIOError, message: "could not enter the emulated link's namespace: \(error.message)")
        }
    }

    /// Moves the calling thread back to the process's namespace. Every thread that entered calls
    /// it before it returns: a Swift concurrency or dispatch worker started from a thread inside
    /// would inherit the link's namespace, and outlive it.
    public func leave() {
        do throws(LinkError) { try session.leave() } catch {
            // Cannot happen short of a kernel refusing a namespace it gave: the thread stays inside.
            printError("sonde: could not leave the emulated link's namespace: \(error.message)")
        }
    }

    /// Failures the link's conditions can cause (a lost packet, a held-back answer): the ones
    /// `explain` names the link in.
    static let networkCodes: Set<ErrorCode> = [.dnsFailure, .connectionRefused, .hostUnreachable, .connectTimeout, .timedOut, .tlsFailure,
                                               .tlsTimeout, .connectionReset, .connectionClosed, .truncatedBody, .emptyReply]

    /// `error` naming the link it happened over, so that a timeout over a link that drops every
    /// packet does not read as the host's fault: a link that loses everything one way or both says
    /// so first; any other link is named after the message with its conditions. Other errors
    /// (a bad URL, an interruption) are returned as they are.
    public func explain(_ error: TaskError) -> TaskError {
        guard Self.networkCodes.contains(error.code) else { return error }
        let conditions = started.conditions
        var explained = error
        let allDown = conditions.lossDownPercent >= 100, allUp = conditions.lossUpPercent >= 100
        if allDown || allUp {
            let which = allDown && allUp ? "every packet" : allDown ? "every packet toward this host" : "every packet this host sends"
            explained.message = "the emulated link \(name) drops \(which) (\(conditions.parameters)), so nothing can get through: " + error.message
        } else {
            explained.message = error.message + " (over the emulated link \(conditions.summary))"
        }
        return explained
    }

    /// The namespace side's device (`sonde<pid>c…`), where a capture sees the emulated side.
    var device: String { session.plan.clientDevice }

    /// Runs `body` on a new thread inside the link's namespace and waits for it (`LinkSession.runInside`):
    /// threads `body` creates (an event loop group, a thread pool, libpcap's socket) live there too.
    /// Blocks the caller for `body`'s time: give it set-up work of a few milliseconds only.
    public func inside<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Result<T, TaskError> {
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
        use.startedAt = session.startedAt
        use.stoppedAt = Timestamp.now()
        use.listOutages()
        return use
    }
}
