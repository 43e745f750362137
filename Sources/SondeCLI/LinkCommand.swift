import ArgumentParser
import CSignalFlags
import Foundation
import SondeCore
import SondeLink
import SondeRun
import SondeSuite

/// `sonde link --link PROFILE -- CMD ARGS...`: runs a command over an emulated link, like
/// mahimahi's `mm-link` shell. The command runs in a network namespace of its own whose only way
/// out is sonde's packet emulator; 127.0.0.1:PORT inside it reaches the host's loopback services
/// across the link, and any other address is reached the way the host reaches it (forwarded and
/// masqueraded by the host; DNS by the host's resolv.conf, also across the link). At the end the emulator's counters are printed on stderr (stdout is the
/// command's) and sonde exits with the command's status.
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Run a command over an emulated link (delay, rate, loss, outages) at packet level.",
        discussion: """
        PROFILE is a preset (\(LinkPresets.names.joined(separator: ", "))), a preset with overrides (lte,loss-down=2%), or \
        key=value pairs: \(LinkProfileParser.keys.joined(separator: ", ")). Delays are one way. Needs root. \
        Inside, 127.0.0.1:PORT is the host's loopback across the link; other addresses are reached through the host \
        (forwarded and masqueraded; needs nftables), names by the host's resolv.conf, across the link too. \
        With nat64 (lte,nat64; app-review) the inside is IPv6-only: the host's IPv4 address a.b.c.d is \
        [64:ff9b::a.b.c.d] (127.0.0.1:PORT is [64:ff9b::127.0.0.1]:PORT), and names resolve through the link's DNS64 \
        (fd53:6f6e:6465::53, in the link's own resolv.conf; upstream: the host's resolv.conf). See docs/link.md.
        """)

    @Option(name: .long, help: "The link profile: a preset, a preset with overrides, or key=value pairs.")
    var link: String

    @Option(name: .long, help: "Poll this long before each deadline and after each packet instead of sleeping, after the thread slept 500us (0us: never).")
    var spin = "100us"

    @Option(name: .customLong("spin-share"), help: "The largest share of the emulator thread's time spins may take (default 25%; 100%: no bound).")
    var spinShare = "25%"

    @Flag(name: .customLong("no-realtime"), help: "Do not run the emulator thread SCHED_FIFO.")
    var noRealtime = false

    @Option(name: .customLong("tun-queue"),
            help: "Packets each TUN holds for the emulator before the kernel drops (txqueuelen; default 16384, Linux's own 500).")
    var tunQueue: Int32 = LinkTuning.defaultTUNQueuePackets

    @Flag(name: .long, help: "Print the link and its counters as one line of JSON on stderr.")
    var json = false

    @Argument(parsing: .postTerminator, help: "The command to run, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("give the command to run after --, e.g. sonde link --link 3g -- curl http://127.0.0.1:8080/") }
        guard let seconds = Quantity.duration(spin), seconds * 1e9 <= Double(LinkTuning.maxSpinNs) else {
            throw ValidationError("--spin must be a duration of at most 1ms, e.g. 100us")
        }
        do {
            _ = try LinkProfileParser.percent("spin-share", spinShare)
        } catch {
            throw ValidationError("--spin-share: \(error.message)")
        }
        guard LinkTuning.tunQueueRange.contains(tunQueue) else {
            throw ValidationError("--tun-queue must be \(LinkTuning.tunQueueRange.lowerBound) … \(LinkTuning.tunQueueRange.upperBound) packets")
        }
    }

    func run() throws {
        let profile: LinkProfile
        do {
            profile = try LinkProfileParser.parse(link)
        } catch {
            printError("sonde link: --link \(error.key == "link" ? "" : error.key + " ")\(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let spinNs = Int64(((Quantity.duration(spin) ?? 0) * 1e9).rounded())
        // Before the first thing the session changes on the host: a signal during set-up is
        // recorded, and the session it interrupted is taken down below, not left for the next run.
        sonde_install_interrupt_handlers()
        defer { sonde_reset_interrupt_handlers() }
        let session: LinkSession
        do {
            session = try LinkSession.start(profile: profile, tuning: LinkTuning(spinNs: spinNs, spinShare: (try? LinkProfileParser.percent("spin-share", spinShare)) ?? 0.25,
                                                                                 realtime: !noRealtime, tunQueuePackets: tunQueue))
        } catch {
            printError("sonde link: \(error.message)")
            throw ExitCode(error.kind == .privileges ? ExitStatus.usage.rawValue : ExitStatus.failure.rawValue)
        }
        if let problem = session.forwardingProblem { printError("sonde link: warning: \(problem)") }
        if sonde_received_signal() != 0 {
            session.stop()
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        let pid: pid_t
        do {
            pid = try session.spawn(command)
        } catch {
            session.stop()
            printError("sonde link: \(error.message)")
            throw ExitCode(127)
        }
        let status = Self.wait(for: pid)
        let counters = session.stop()
        printError(json ? Self.json(profile, counters.down, counters.up) : Self.text(profile, session.plan, counters.down, counters.up))
        if let problem = counters.problem { printError("sonde link: the emulator stopped early: \(problem)") }
        if sonde_received_signal() != 0 { throw ExitCode(ExitStatus.interrupted.rawValue) }
        if status != 0 { throw ExitCode(status) }
    }

    /// Waits for the command; on SIGINT/SIGTERM passes the signal on once, and after 10 s more
    /// kills it. Returns its exit status (128 + signal when a signal ended it).
    private static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        var forwarded: Date?
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { return 1 }
            let signal = sonde_received_signal()
            if signal != 0 && forwarded == nil {
                kill(pid, signal)
                forwarded = Date()
            }
            if let forwarded, Date().timeIntervalSince(forwarded) > 10 { kill(pid, SIGKILL) }
            usleep(5_000)
        }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// The link in one line (every parameter the profile sets: `LinkConditions.parameters`) and
    /// each direction's counters, the TUN devices' drops included.
    static func text(_ profile: LinkProfile, _ plan: LinkAddressPlan, _ down: LinkCounters, _ up: LinkCounters) -> String {
        func line(_ name: String, _ counters: LinkCounters) -> String {
            "  \(name) \(counters.packetsIn) packets (\(counters.bytesIn) B) in, \(counters.packetsDelivered) delivered, "
                + "\(counters.dropped) dropped (loss \(counters.droppedByLoss), queue \(counters.droppedByQueue), "
                + "outage \(counters.droppedByOutage), TUN queue \(counters.droppedByTUNQueue), TUN write \(counters.droppedByTUNWrite)), "
                + "queue peak \(counters.queuePeakBytes) B"
        }
        return """
        sonde link: \(profile.name) over \(plan.namespaceName): \(profile.conditions.parameters)
        \(line("down:", down))
        \(line("up:  ", up))
        """
    }

    static func json(_ profile: LinkProfile, _ down: LinkCounters, _ up: LinkCounters) -> String {
        var output = JSONOutput()
        output.object { object in
            object.key("link")
            profile.conditions.writeJSON(to: &object)
            object.key("counters")
            object.object { counters in
                counters.key("down")
                down.writeJSON(to: &counters)
                counters.key("up")
                up.writeJSON(to: &counters)
            }
        }
        return String(decoding: output.bytes, as: UTF8.self)
    }
}
