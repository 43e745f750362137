import Foundation
import Testing

/// `sonde link` to destinations beyond the host's loopback: a server in a "remote" namespace behind
/// a host route (`RemoteNamespace`), names resolved across the link by a loopback and a remote
/// resolver (dnslib, `Fixtures/dns_server.py`), the nft table and forwarding flags gone after a run
/// and after a SIGKILL plus the next run, the guard that keeps the flags from forwarding anything
/// else, and the host's `ip_forward` never touched. Root only; every namespace, process and file
/// made here is removed here. Part of `LinkCLITests` (an extension), so that it runs serialized
/// with its other runs: a run's start removes what killed runs left, which the SIGKILL test watches.
extension LinkCLITests {
    private static let nft = ["/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "nft"
    private static let dnsName = "probe.sonde.test"
    private static let answer = "10.9.8.7"

    private static func tables() throws -> String { (try Harness.run(nft, ["list", "tables"])).stdout }

    /// The pid in "sonde link: ... over sonde-link-<pid>:".
    private static func sondePid(_ stderr: String) -> String? {
        guard let range = stderr.range(of: "over sonde-link-") else { return nil }
        return String(stderr[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func aRemoteServerIsReachedAcrossTheLinkAndNothingStays() throws {
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try remote.startHTTPServer(port: 8000, directory: directory, log: directory + "/http.log")
        let ipForward = RemoteNamespace.sysctl("net/ipv4/ip_forward"), vethForwarding = remote.hostForwarding
        // The host's own requests (the readiness check) come from the same address: counted apart.
        func requests() -> Int {
            ((try? String(contentsOfFile: directory + "/http.log", encoding: .utf8)) ?? "").components(separatedBy: "\(remote.hostAddress) - - ").count - 1
        }
        let before = requests()
        var connects: [Double] = []
        for _ in 0..<3 {
            let result = try Harness.sonde(["link", "--link", "delay-down=20ms,delay-up=20ms", "--", "curl", "-s", "-o", "/dev/null",
                                            "--max-time", "10", "-w", "%{http_code} %{time_connect}", "http://\(remote.serverAddress):8000/"],
                                           timeout: 60)
            #expect(result.status == 0 && !result.stderr.contains("warning"), "\(result.stderr)")
            let fields = result.stdout.split(separator: " ")
            #expect(fields.first == "200", "\(result.stdout) \(result.stderr)")
            connects.append(try #require(fields.last.flatMap { Double($0) }, "\(result.stdout)") * 1000)
            // Nothing of the run stays: its table, and the flags it turned on.
            let pid = try #require(Self.sondePid(result.stderr), "\(result.stderr)")
            #expect(!(try Self.tables()).contains("sonde_link_\(pid)"))
            #expect(RemoteNamespace.sysctl("net/ipv4/ip_forward") == ipForward)
            #expect(remote.hostForwarding == vethForwarding, "the veth's forwarding flag is restored")
        }
        let median = connects.sorted()[1]
        #expect(median >= 39 && median < 150, "connect times \(connects) ms")
        // The remote saw the host's address on the veth: masqueraded, as the host reaches it.
        let log = (try? String(contentsOfFile: directory + "/http.log", encoding: .utf8)) ?? ""
        #expect(requests() == before + 3, "\(log)")
        #expect(!log.contains("198.18.") && !log.contains("198.19."), "\(log)")
    }

    /// While a run lives, the flags it turned on forward nothing but its replies: the remote cannot
    /// open a connection into the namespace (the host can, across the link). After a SIGKILL its
    /// table (and so the guard) stays until the next run, which restores the flags and removes it.
    @Test func aSIGKILLedRunsTableAndFlagsAreUndoneByTheNextRun() throws {
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let ipForward = RemoteNamespace.sysctl("net/ipv4/ip_forward")
        let vethForwarding = remote.hostForwarding
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pid = try Harness.spawn(Harness.sonde, ["link", "--link", "delay-down=5ms", "--", "python3", "-m", "http.server", "8000",
                                                    "--bind", "0.0.0.0", "--directory", directory],
                                    stdout: directory + "/out", stderr: directory + "/err")
        var reaped = false
        defer {
            if !reaped {
                // The server inside first (it would outlive sonde), then sonde.
                let inside = ((try? Harness.run(Self.ip, ["netns", "pids", "sonde-link-\(pid)"]))?.stdout ?? "").split(separator: "\n").compactMap { Int32($0) }
                for child in inside { kill(child, SIGKILL) }
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
        #expect(Harness.waitFor(seconds: 20) { ((try? Self.tables()) ?? "").contains("sonde_link_\(pid)") })
        let hostAddress = (try Harness.run(Self.ip, ["-o", "-4", "addr", "show", "dev", "sonde\(pid)h"])).stdout
        let octets = try #require(hostAddress.split(separator: " ").first { $0.hasPrefix("198.18.") || $0.hasPrefix("198.19.") }, "\(hostAddress)")
            .split(separator: "/")[0].split(separator: ".").compactMap { Int($0) }
        try #require(octets.count == 4)
        let inside = "\(octets[0]).\(octets[1]).\(octets[2]).\(octets[3] + 1)"
        let url = "http://\(inside):8000/"
        // The host reaches the namespace's server across the link ...
        #expect(Harness.waitFor(seconds: 20) {
            ((try? Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "2", "-w", "%{http_code}", url]))?.stdout ?? "") == "200"
        })
        // ... the veth forwards (its flag is on) but the remote cannot get in: the guard drops it.
        #expect(remote.hostForwarding == "1")
        #expect(RemoteNamespace.sysctl("net/ipv4/ip_forward") == ipForward)
        let blocked = try remote.run(["curl", "-s", "-o", "/dev/null", "--max-time", "2", "-w", "%{http_code}", url])
        #expect(blocked.status != 0 && blocked.stdout != "200", "\(blocked.status) \(blocked.stdout)")

        let insidePids = (try Harness.run(Self.ip, ["netns", "pids", "sonde-link-\(pid)"])).stdout.split(separator: "\n").compactMap { Int32($0) }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped = true
        for child in insidePids { kill(child, SIGKILL) }
        #expect((try Self.tables()).contains("sonde_link_\(pid)"), "a SIGKILL leaves the table (and its guard)")
        #expect(remote.hostForwarding == "1")

        let next = try Harness.sonde(["link", "--link", "delay-down=1ms", "--", "true"], timeout: 30)
        #expect(next.status == 0, "\(next.stderr)")
        let tables = try Self.tables()
        #expect(!tables.contains("sonde_link_\(pid)") && !tables.contains("sonde_link_\(Self.sondePid(next.stderr) ?? "?")"), "\(tables)")
        #expect(remote.hostForwarding == vethForwarding, "the next run restored the veth's flag")
        #expect(RemoteNamespace.sysctl("net/ipv4/ip_forward") == ipForward)
        #expect(!(try Harness.run(Self.ip, ["netns", "list"])).stdout.contains("sonde-link-\(pid)"))
    }

    /// Two runs at once: the second finds the veth's flag on and leaves it; when the first ends it
    /// hands the flag to the second (its table's set), which still reaches the remote, and restores
    /// it at its own end.
    @Test func aRunThatEndsHandsItsFlagsToARunStillGoing() throws {
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try remote.startHTTPServer(port: 8000, directory: directory, log: directory + "/http.log")
        let vethForwarding = remote.hostForwarding
        // Those not reaped yet (a reaped pid may belong to someone else by the end).
        var running: [pid_t] = []
        defer { for pid in running { Harness.stop(pid, signal: SIGKILL, seconds: 5) } }
        let first = try Harness.spawn(Harness.sonde, ["link", "--link", "delay-down=1ms", "--", "sleep", "30"],
                                      stdout: directory + "/first.out", stderr: directory + "/first.err")
        running.append(first)
        #expect(Harness.waitFor(seconds: 20) { ((try? Self.tables()) ?? "").contains("sonde_link_\(first)") })
        let second = try Harness.spawn(Harness.sonde, ["link", "--link", "delay-down=1ms", "--", "sh", "-c",
                                                       "sleep 4; curl -s -o /dev/null --max-time 5 -w '%{http_code}' http://\(remote.serverAddress):8000/"],
                                       stdout: directory + "/second.out", stderr: directory + "/second.err")
        running.append(second)
        #expect(Harness.waitFor(seconds: 20) { ((try? Self.tables()) ?? "").contains("sonde_link_\(second)") })
        Harness.stop(first, signal: SIGTERM, seconds: 10)
        running.removeAll { $0 == first }
        #expect(remote.hostForwarding == "1", "the second run still needs the flag")
        let set = (try Harness.run(Self.nft, ["list", "set", "ip", "sonde_link_\(second)", "flipped"])).stdout
        #expect(set.contains("\"\(remote.hostDevice)\""), "\(set)")
        var status: Int32 = 0
        let ended = Harness.waitFor(seconds: 30) { waitpid(second, &status, WNOHANG) == second }
        #expect(ended)
        if ended { running.removeAll { $0 == second } }
        #expect(status == 0 && (try? String(contentsOfFile: directory + "/second.out", encoding: .utf8)) == "200",
                "\(status) \((try? String(contentsOfFile: directory + "/second.err", encoding: .utf8)) ?? "")")
        #expect(remote.hostForwarding == vethForwarding)
        let tables = try Self.tables()
        #expect(!tables.contains("sonde_link_\(first)") && !tables.contains("sonde_link_\(second)"), "\(tables)")
    }

    /// SIGINT and SIGTERM end the command and then the run, which removes its table and restores
    /// the flags it turned on (sonde exits 130).
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedRunRemovesItsTable(signal: Int32) throws {
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let ipForward = RemoteNamespace.sysctl("net/ipv4/ip_forward"), vethForwarding = remote.hostForwarding
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The command marks that it runs: the link is then fully up (the table appears before the
        // flags are turned on).
        let pid = try Harness.spawn(Harness.sonde, ["link", "--link", "delay-down=5ms", "--", "sh", "-c", "touch \"$0\"; exec sleep 30", directory + "/running"],
                                    stdout: directory + "/out", stderr: directory + "/err")
        #expect(Harness.waitFor(seconds: 20) { FileManager.default.fileExists(atPath: directory + "/running") })
        #expect((try Self.tables()).contains("sonde_link_\(pid)"))
        #expect(remote.hostForwarding == "1")
        kill(pid, signal)
        var status: Int32 = 0
        let ended = Harness.waitFor(seconds: 20) { waitpid(pid, &status, WNOHANG) == pid }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(ended && (status >> 8) & 0xff == 130, "\(status)")
        #expect(!(try Self.tables()).contains("sonde_link_\(pid)"))
        #expect(remote.hostForwarding == vethForwarding)
        #expect(RemoteNamespace.sysctl("net/ipv4/ip_forward") == ipForward)
    }

    /// A signal while the link is being set up (as soon as its namespace appears, before its table,
    /// flags and command) takes the link down and exits 130: the handlers are in place before the first
    /// change to the host, and nothing is left for the next run to clean.
    @Test func aSignalDuringSetUpLeavesNothing() throws {
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let ipForward = RemoteNamespace.sysctl("net/ipv4/ip_forward"), vethForwarding = remote.hostForwarding
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pid = try Harness.spawn(Harness.sonde, ["link", "--link", "delay-down=5ms", "--", "sh", "-c", "touch \"$0\"; exec sleep 30", directory + "/running"],
                                    stdout: directory + "/out", stderr: directory + "/err")
        // The namespace's file is the first thing the link creates (before its table and flags).
        let appeared = Harness.waitFor(seconds: 20, every: 0.0005) { access("/run/netns/sonde-link-\(pid)", F_OK) == 0 }
        kill(pid, SIGTERM)
        #expect(appeared)
        var status: Int32 = 0
        let ended = Harness.waitFor(seconds: 20) { waitpid(pid, &status, WNOHANG) == pid }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(ended && (status & 0x7f) == 0 && (status >> 8) & 0xff == 130,
                "\(status) \((try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? "")")
        #expect(!(try Self.tables()).contains("sonde_link_\(pid)"))
        #expect(!(try Harness.run(Self.ip, ["netns", "list"])).stdout.contains("sonde-link-\(pid)"))
        #expect(remote.hostForwarding == vethForwarding)
        #expect(RemoteNamespace.sysctl("net/ipv4/ip_forward") == ipForward)
    }

    /// Without nftables (its library hidden by /dev/null in a mount namespace of sonde's own) the
    /// run still starts, reaches 127.0.0.1, says in one sentence why nothing else is reachable, and
    /// changes no forwarding flag.
    @Test func withoutNftablesOnlyTheLoopbackIsReachedAndItSaysWhy() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let script = "l=$(readlink -f \"$(ldconfig -p | awk '/libnftables[.]so[.]1 /{print $NF; exit}')\") && "
            + "[ -f \"$l\" ] && mount --bind /dev/null \"$l\" || exit 90; exec \"$0\" \"$@\""
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // unshare and sh exec, so the pid is sonde's.
        let pid = try Harness.spawn("/usr/bin/unshare", ["--mount", "sh", "-c", script, Harness.sonde, "link", "--link", "delay-down=1ms", "--",
                                                         "sh", "-c", "curl -s -o /dev/null --max-time 5 -w '%{http_code}' http://127.0.0.1:\(nginx.http)/1k.bin; sleep 2"],
                                    stdout: directory + "/out", stderr: directory + "/err")
        var status: Int32 = 0
        defer { if waitpid(pid, &status, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0) } }
        #expect(Harness.waitFor(seconds: 20) { ((try? Harness.run(Self.ip, ["netns", "list"]))?.stdout ?? "").contains("sonde-link-\(pid)") })
        #expect(remote.hostForwarding == "0")
        #expect(!(try Self.tables()).contains("sonde_link_\(pid)"))
        #expect(Harness.waitFor(seconds: 30) { waitpid(pid, &status, WNOHANG) == pid })
        let stdout = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? ""
        #expect(status == 0, "\(status) \(stderr)")
        #expect(stderr.contains("sonde link: warning: only 127.0.0.0/8 is reachable across the link: nftables is not installed"), "\(stderr)")
        #expect(stdout == "200", "\(stdout)")
    }

    /// Resolves `name` inside `sonde link` with a resolv.conf naming `resolver` (bind-mounted over
    /// /etc/resolv.conf in a mount namespace of the command's own: the network namespace is the
    /// link's, the file the one a process reads). Returns getent's output and the milliseconds it took.
    private static func resolve(link: String, resolver: String) throws -> (output: String, ms: Int) {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolv = directory + "/resolv.conf"
        try "nameserver \(resolver)\noptions attempts:1 timeout:5\n".write(toFile: resolv, atomically: true, encoding: .utf8)
        let script = "mount --bind \"$0\" /etc/resolv.conf || exit 90; s=$(date +%s%N); getent ahostsv4 \(dnsName); r=$?; e=$(date +%s%N); "
            + "echo ms=$(( (e - s) / 1000000 )); exit $r"
        let result = try Harness.sonde(["link", "--link", link, "--", "unshare", "--mount", "sh", "-c", script, resolv], timeout: 60)
        #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
        let ms = result.stdout.split(separator: "\n").last { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) }
        return (result.stdout, try #require(ms, "\(result.stdout)"))
    }

    /// Starts the DNS fixture with `prefix` (e.g. `ip netns exec NAME`) on `address`:53; returns its pid once it listens.
    private static func startDNS(_ spawn: ([String], String, String) throws -> pid_t, address: String, directory: String) throws -> pid_t {
        let out = directory + "/dns.out"
        let pid = try spawn(["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/dns_server.py", address, "53", dnsName, answer, "120"], out, directory + "/dns.err")
        guard Harness.waitFor(seconds: 20, { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("ready") }) else {
            Harness.stop(pid, signal: SIGTERM)
            let error = (try? String(contentsOfFile: directory + "/dns.err", encoding: .utf8)) ?? ""
            throw Harness.SpawnError(message: "the DNS fixture did not start: \(error)")
        }
        return pid
    }

    /// A resolver on the host's loopback (as 127.0.0.53 is) is reached by the link's 127.0.0.0/8
    /// path; `dns-delay` holds its query back, and nothing else of the resolution.
    @Test func aLoopbackResolverAnswersAcrossTheLinkAndDNSDelayApplies() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolver = "127.0.83.53"
        let dns = try Self.startDNS({ try Harness.spawn("/usr/bin/env", $0, stdout: $1, stderr: $2) }, address: resolver, directory: directory)
        defer { Harness.stop(dns, signal: SIGTERM) }
        let plain = try Self.resolve(link: "delay-down=5ms,delay-up=5ms", resolver: resolver)
        #expect(plain.output.contains(Self.answer), "\(plain.output)")
        #expect(plain.ms >= 10 && plain.ms < 300, "\(plain.ms) ms")
        let delayed = try Self.resolve(link: "delay-down=5ms,delay-up=5ms,dns-delay=400ms", resolver: resolver)
        #expect(delayed.output.contains(Self.answer), "\(delayed.output)")
        #expect(delayed.ms >= 410 && delayed.ms < 1500, "\(delayed.ms) ms")
    }

    /// A resolver elsewhere (here in the remote namespace, as the host's 10.255.255.53 is on this
    /// machine) is reached through the host's forwarding, with `dns-delay` too.
    @Test func aRemoteResolverAnswersThroughForwarding() throws {
        let remote = try RemoteNamespace()
        defer { remote.remove() }
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.startDNS({ try remote.spawn($0, stdout: $1, stderr: $2) }, address: remote.serverAddress, directory: directory)
        let plain = try Self.resolve(link: "delay-down=5ms,delay-up=5ms", resolver: remote.serverAddress)
        #expect(plain.output.contains(Self.answer), "\(plain.output)")
        let delayed = try Self.resolve(link: "delay-down=5ms,delay-up=5ms,dns-delay=400ms", resolver: remote.serverAddress)
        #expect(delayed.output.contains(Self.answer), "\(delayed.output)")
        #expect(delayed.ms >= 410 && delayed.ms < 1500, "\(delayed.ms) ms")
    }
}
