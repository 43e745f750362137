import Foundation
import Testing

/// `--link nat64`'s DNS64: names resolve inside an IPv6-only link through the link's own
/// resolv.conf (`nameserver fd53:6f6e:6465::53`) and DNS64, whose upstream is the host's
/// resolv.conf at the start. Here that is a dnslib zone (`Fixtures/dns64_upstream.py`) named by a
/// resolv.conf bind-mounted for sonde alone (`unshare --mount`), as the other link DNS tests do.
/// The oracle: the same queries to sonde's DNS64 and to unbound's dns64 module (Debian's unbound,
/// `module-config: "dns64 iterator"`) forwarding to the same upstream give the same answers.
/// Root only. Part of `LinkCLITests` (an extension), serialized with its other runs.
extension LinkCLITests {
    /// The zone on `address`:53 (127.43.N.53, an address of its own) and a resolv.conf naming it.
    final class DNS64Upstream {
        let directory = Harness.temporaryDirectory()
        let network = Int.random(in: 1...250)
        var address: String { "127.43.\(network).53" }
        var resolvConf: String { directory + "/resolv.conf" }
        let pid: pid_t

        init() throws {
            let directory = self.directory, address = "127.43.\(network).53"
            try "nameserver \(address)\noptions attempts:2 timeout:3\n".write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
            pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/dns64_upstream.py", address, "53", "300"],
                                    stdout: directory + "/dns.out", stderr: directory + "/dns.err")
            #expect(Harness.waitFor(seconds: 20) { ((try? String(contentsOfFile: directory + "/dns.out", encoding: .utf8)) ?? "").contains("ready") },
                    "\((try? String(contentsOfFile: directory + "/dns.err", encoding: .utf8)) ?? "")")
        }

        /// sonde with `arguments`, in a mount namespace of its own whose /etc/resolv.conf names the zone.
        func sonde(_ arguments: [String], timeout: Double = 60) throws -> Harness.Result {
            try Harness.run("/usr/bin/unshare", ["--mount", "sh", "-c", "mount --bind \"$0\" /etc/resolv.conf || exit 90; exec \"$@\"", resolvConf,
                                                 Harness.sonde] + arguments, timeout: timeout)
        }

        func stop() {
            Harness.stop(pid, signal: SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test func aNameWithOnlyAnARecordReachesAnIPv4OnlyServerThroughDNS64() throws {
        let upstream = try DNS64Upstream()
        defer { upstream.stop() }
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try upstream.sonde(["probe", "--link", "nat64", "--output-dir", output, "http://v4only.test:\(server.port)/index.txt"])
        #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
        let transaction = try #require(LinkRunCLITests.transactions(try LinkRunCLITests.report(output)).first)
        #expect(String(describing: transaction["remoteAddress"] ?? "").contains("64:ff9b::7f00:1"), "\(transaction)")
        #expect(server.log.contains("198.18.") || server.log.contains("198.19."), "\(server.log)")
        #expect((result.stdout + result.stderr).contains("DNS64 at fd53:6f6e:6465::53"), "\(result.stdout) \(result.stderr)")
    }

    /// A real AAAA comes back unchanged, an A-only name and a CNAME to one get the synthesized
    /// address, inside a command the link spawns; the link's resolv.conf names the DNS64 and the
    /// host's file is untouched.
    @Test func aRealAAAAIsUnchangedAndTheLinkHasItsOwnResolvConf() throws {
        let upstream = try DNS64Upstream()
        defer { upstream.stop() }
        let hostFile = try Data(contentsOf: URL(fileURLWithPath: "/etc/resolv.conf"))
        let result = try upstream.sonde(["link", "--link", "nat64", "--", "sh", "-c",
                                         "getent ahostsv6 dual.test; echo ---; getent ahostsv6 v4only.test; echo ---; getent ahostsv6 alias.test; echo ---; cat /etc/resolv.conf"])
        #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
        let parts = result.stdout.components(separatedBy: "---\n")
        #expect(parts.count == 4, "\(result.stdout)")
        guard parts.count == 4 else { return }
        #expect(parts[0].hasPrefix("2001:db8::10 ") && !parts[0].contains("64:ff9b"), "\(parts[0])")
        #expect(parts[1].hasPrefix("64:ff9b::7f00:1 "), "\(parts[1])")
        #expect(parts[2].hasPrefix("64:ff9b::7f00:1 "), "\(parts[2])")
        #expect(parts[3].contains("nameserver fd53:6f6e:6465::53\noptions attempts:2 timeout:3"), "\(parts[3])")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "/etc/resolv.conf")) == hostFile)
    }

    /// A first nameserver that never answers (a UDP socket that reads nothing) costs the DNS64 one
    /// try per query: the A round goes to the nameserver that answered the AAAA round, so an A-only
    /// name still gets its synthesized AAAA and is reached through NAT64. The DNS exchanges show in
    /// the link's connection table as flows to the DNS64's 127.0.0.1 port, both ways.
    @Test func aSilentFirstNameserverCostsTheDNS64OneTry() throws {
        let upstream = try DNS64Upstream()
        defer { upstream.stop() }
        let silent = "127.43.\(upstream.network).54"
        let sink = try Harness.spawn("/usr/bin/env", ["python3", "-c", """
            import socket, time
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("\(silent)", 53)); print("ready", flush=True); time.sleep(120)
            """], stdout: upstream.directory + "/sink.out", stderr: upstream.directory + "/sink.err")
        defer { Harness.stop(sink, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 10) { ((try? String(contentsOfFile: upstream.directory + "/sink.out", encoding: .utf8)) ?? "").contains("ready") })
        try "nameserver \(silent)\nnameserver \(upstream.address)\noptions attempts:1 timeout:5\n".write(toFile: upstream.resolvConf, atomically: true, encoding: .utf8)
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try upstream.sonde(["probe", "--link", "nat64", "--output-dir", output, "http://v4only.test:\(server.port)/index.txt"])
        #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
        let report = try LinkRunCLITests.report(output)
        let transaction = LinkRunCLITests.transactions(report).first
        let remote = (transaction?["remoteAddress"] as? String) ?? ""
        #expect(remote == "64:ff9b::7f00:1", "\(String(describing: transaction))")
        let connections = (((report["run"] as? [String: Any])?["link"] as? [String: Any])?["connections"] as? [[String: Any]]) ?? []
        let dns = connections.filter { $0["protocolName"] as? String == "udp" && $0["remoteAddress"] as? String == "127.0.0.1" }
        #expect(dns.allSatisfy { $0["service"] as? String == "DNS64" }, "\(dns)")
        #expect(result.stdout.contains("→ 127.0.0.1:") && result.stdout.contains(" (DNS64)  down "), "\(result.stdout)")
        func packets(_ row: [String: Any], _ direction: String) -> Int { ((row[direction] as? [String: Any])?["packetsIn"] as? Int) ?? 0 }
        #expect(!dns.isEmpty && dns.allSatisfy { packets($0, "up") >= 1 && packets($0, "down") >= 1 }, "each DNS exchange one flow, both ways: \(dns)")
    }

    /// The resolver's address inside reaches the DNS64 on port 53 only: a TCP connect to another
    /// port of it is refused at once (ICMPv6 port unreachable), never the host's loopback port.
    @Test func theResolversAddressReachesNothingButTheDNS64() throws {
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let result = try Harness.sonde(["link", "--link", "nat64", "--", "curl", "-s", "--max-time", "5", "-w", "%{http_code}",
                                        "http://[fd53:6f6e:6465::53]:\(server.port)/index.txt"], timeout: 30)
        #expect(result.status == 7, "curl reached the host's 127.0.0.1:\(server.port) through the resolver's address: \(result.status) \(result.stdout) \(result.stderr)")
        #expect(!server.log.contains("GET /index.txt"), "\(server.log)")
    }

    @Test func nxdomainFailsTheProbeAsADNSFailure() throws {
        let upstream = try DNS64Upstream()
        defer { upstream.stop() }
        let output = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let started = Date()
        let result = try upstream.sonde(["probe", "--link", "nat64", "--output-dir", output, "http://missing.test:9/"])
        #expect(result.status == 1, "\(result.status) \(result.stdout) \(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        let task = try #require((try LinkRunCLITests.report(output)["probes"] as? [[String: Any]])?.first)
        let error = try #require(task["error"] as? [String: Any], "\(task)")
        #expect(error["code"] as? String == "dnsFailure", "\(error)")
    }

    /// The oracle: each name's AAAA and A asked of sonde's DNS64 and of unbound's (dns64 iterator,
    /// forwarding to the same zone, cache off), from inside the link, over UDP and again over TCP
    /// when truncated: the same rcode, the same truncation, the same answer records (TTLs aside:
    /// unbound's are 0 with its cache off).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/unbound"), "needs unbound (Debian's; make test installs it)"))
    func sondesDNS64AnswersAsUnboundsDoes() throws {
        let upstream = try DNS64Upstream()
        defer { upstream.stop() }
        let unboundAddress = "127.43.\(upstream.network).54", unboundPort = Harness.freePort()
        let config = """
            server:
                interface: \(unboundAddress)
                port: \(unboundPort)
                access-control: 0.0.0.0/0 allow
                do-ip6: no
                do-not-query-localhost: no
                module-config: "dns64 iterator"
                dns64-prefix: 64:ff9b::/96
                chroot: ""
                username: ""
                directory: "\(upstream.directory)"
                pidfile: ""
                use-syslog: no
                logfile: ""
                num-threads: 1
                cache-max-ttl: 0
                cache-max-negative-ttl: 0
                local-zone: "test." nodefault
            forward-zone:
                name: "."
                forward-addr: \(upstream.address)@53

            """
        try config.write(toFile: upstream.directory + "/unbound.conf", atomically: true, encoding: .utf8)
        let unbound = try Harness.spawn("/usr/sbin/unbound", ["-d", "-c", upstream.directory + "/unbound.conf"],
                                        stdout: upstream.directory + "/unbound.out", stderr: upstream.directory + "/unbound.err")
        defer { Harness.stop(unbound, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 10) {
            (try? Harness.run("/usr/bin/dig", ["+short", "+tries=1", "+time=1", "-p", "\(unboundPort)", "@\(unboundAddress)", "v4only.test", "A"]))?.stdout
                .contains("127.0.0.1") == true
        }, "\((try? String(contentsOfFile: upstream.directory + "/unbound.err", encoding: .utf8)) ?? "")")
        let script = """
            import json, sys
            from dnslib import DNSRecord, QTYPE, RCODE
            def ask(server, port, name, qtype):
                query = DNSRecord.question(name, qtype)
                reply = DNSRecord.parse(query.send(server, port, tcp=False, timeout=5, ipv6=True))
                truncated = bool(reply.header.tc)
                if truncated:
                    reply = DNSRecord.parse(query.send(server, port, tcp=True, timeout=5, ipv6=True))
                return {"rcode": RCODE[reply.header.rcode], "tc": truncated,
                        "answers": sorted("%s %s %s" % (str(r.rname).lower(), QTYPE[r.rtype], r.rdata) for r in reply.rr)}
            out = {}
            for name in ["v4only.test", "dual.test", "alias.test", "many.test", "empty.test", "missing.test"]:
                for qtype in ["AAAA", "A"]:
                    out[name + " " + qtype] = {"sonde": ask("fd53:6f6e:6465::53", 53, name, qtype),
                                               "unbound": ask("64:ff9b::" + sys.argv[1], int(sys.argv[2]), name, qtype)}
            print(json.dumps(out))
            """
        let result = try upstream.sonde(["link", "--link", "nat64", "--", "python3", "-c", script, unboundAddress, "\(unboundPort)"], timeout: 90)
        #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
        let answers = try Harness.json(result.stdout)
        #expect(answers.count == 12, "\(answers)")
        for (question, value) in answers {
            let pair = try #require(value as? [String: Any])
            #expect(NSDictionary(dictionary: pair["sonde"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: pair["unbound"] as? [String: Any] ?? [:]),
                    "\(question): \(pair)")
        }
        // Not vacuous: the answers are the ones RFC 6147 asks for.
        func sonde(_ key: String) -> [String: Any] { ((answers[key] as? [String: Any])?["sonde"] as? [String: Any]) ?? [:] }
        #expect(sonde("v4only.test AAAA")["answers"] as? [String] == ["v4only.test. AAAA 64:ff9b::7f00:1"], "\(answers)")
        #expect(sonde("dual.test AAAA")["answers"] as? [String] == ["dual.test. AAAA 2001:db8::10"])
        #expect(sonde("alias.test AAAA")["answers"] as? [String] == ["alias.test. CNAME v4only.test.", "v4only.test. AAAA 64:ff9b::7f00:1"])
        #expect(sonde("many.test AAAA")["tc"] as? Bool == true && (sonde("many.test AAAA")["answers"] as? [String])?.count == 40)
        #expect(sonde("missing.test AAAA")["rcode"] as? String == "NXDOMAIN" && sonde("empty.test AAAA")["rcode"] as? String == "NOERROR")
    }
}
