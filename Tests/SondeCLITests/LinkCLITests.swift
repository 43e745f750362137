import Foundation
import Testing

/// `sonde link`: curl through the emulated link against nginx on the host's loopback, the
/// privilege refusal, and a SIGKILLed run's namespace removed by the next run. Root only (the
/// link needs CAP_NET_ADMIN and CAP_SYS_ADMIN); each test creates and removes its own namespace.
@Suite(.serialized, .enabled(if: geteuid() == 0, "needs root: sonde link creates a network namespace and TUN devices"))
struct LinkCLITests {
    /// `ip` from iproute2 (installed by `make test`), to look at namespaces and devices from outside.
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "ip"

    @Test func aColdConnectCrossesBothDelays() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        var connects: [Double] = []
        for _ in 0..<3 {
            let result = try Harness.sonde(["link", "--link", "delay-down=40ms,delay-up=40ms", "--", "curl", "-s", "-o", "/dev/null",
                                            "--max-time", "10", "-w", "%{time_connect}", "http://127.0.0.1:\(nginx.http)/1k.bin"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("sonde link: custom over sonde-link-"), "\(result.stderr)")
            connects.append(try #require(Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.stdout)") * 1000)
        }
        let median = connects.sorted()[1]
        #expect(median >= 78 && median < 200, "connect times \(connects) ms")
    }

    @Test func theCountersSayWhatCrossed() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let result = try Harness.sonde(["link", "--json", "--link", "lte,loss-down=0%", "--", "curl", "-s", "-o", "/dev/null",
                                        "--max-time", "10", "http://127.0.0.1:\(nginx.http)/3m.bin"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("{") })
        let document = try Harness.json(String(line))
        let link = try #require(document["link"] as? [String: Any])
        #expect(link["profile"] as? String == "lte+" && link["delayUpMs"] as? Double == 65)
        let down = try #require((document["counters"] as? [String: Any])?["down"] as? [String: Any])
        // 3 MB of body went down, all of it delivered.
        #expect((down["bytesDelivered"] as? Int ?? 0) > 3_000_000)
        #expect(down["droppedByLoss"] as? Int == 0)
    }

    @Test func withoutPrivilegesItSaysWhatIsNeeded() throws {
        let result = try Harness.run("/usr/bin/setpriv", ["--bounding-set", "-net_admin,-sys_admin", "--inh-caps", "-net_admin,-sys_admin",
                                                          Harness.sonde, "link", "--link", "3g", "--", "true"])
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("--link needs root: CAP_NET_ADMIN and CAP_SYS_ADMIN"), "\(result.stderr)")
    }

    /// The command starts with no signal blocked (the spawning thread blocks nearly all): a shell
    /// that ends a child with SIGTERM and waits for it returns, and sonde passes its status on.
    @Test func theCommandGetsSignalsAndItsStatusIsPassedOn() throws {
        let result = try Harness.sonde(["link", "--link", "delay-down=1ms", "--", "sh", "-c",
                                        "sleep 20 & p=$!; kill -TERM $p; wait $p; echo waited=$?; grep SigBlk /proc/self/status; exit 3"], timeout: 15)
        #expect(result.status == 3, "\(result.status) \(result.stderr)")
        #expect(result.stdout.contains("waited=143") && result.stdout.contains("SigBlk:\t0000000000000000"), "\(result.stdout)")
    }

    @Test func aBadProfileIsAUsageError() throws {
        let result = try Harness.sonde(["link", "--link", "delay-down=2h", "--", "true"])
        #expect(result.status == 64 && result.stderr.contains("delay-down"), "\(result.stderr)")
    }

    @Test func aSIGKILLedRunsNamespaceIsRemovedByTheNextRun() throws {
        let directory = Harness.temporaryDirectory()
        let pid = try Harness.spawn(Harness.sonde, ["link", "--link", "delay-down=5ms", "--", "sleep", "30"],
                                    stdout: directory + "/out", stderr: directory + "/err")
        let name = "sonde-link-\(pid)"
        #expect(Harness.waitFor(seconds: 20) { ((try? Harness.run(Self.ip, ["netns", "list"]))?.stdout ?? "").contains(name) })
        // The command inside (sleep) outlives a SIGKILLed parent, as any child does: found and ended here.
        let inside = (try Harness.run(Self.ip, ["netns", "pids", name])).stdout.split(separator: "\n").compactMap { Int32($0) }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        for child in inside { kill(child, SIGKILL) }
        #expect((try Harness.run(Self.ip, ["netns", "list"])).stdout.contains(name), "a SIGKILL leaves the namespace's name")
        let next = try Harness.sonde(["link", "--link", "delay-down=1ms", "--", "true"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(!(try Harness.run(Self.ip, ["netns", "list"])).stdout.contains(name))
        // The TUNs went with their descriptors.
        let links = (try Harness.run(Self.ip, ["-o", "link"])).stdout
        #expect(!links.contains("sonde\(pid)h") && !links.contains("sonde\(pid)c"), "\(links)")
    }
}
