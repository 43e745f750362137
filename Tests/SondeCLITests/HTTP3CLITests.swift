import Foundation
import Testing

/// `--http3` and `--http3-only` against hypercorn (aioquic) on 127.0.0.1: TCP+TLS on one port,
/// QUIC on another, with a certificate from a CA made for the test (scripts/h3-fixture.sh).
/// They need a libcurl with HTTP/3 in use (the one scripts/provide-libcurl.sh provides) and
/// hypercorn with aioquic (`make test` installs both).
@Suite(.serialized, .enabled(if: LibcurlFacts.runningHasHTTP3,
                             "needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh; see sonde version)"),
       .enabled(if: H3Server.available, "needs hypercorn and aioquic (pip install hypercorn aioquic)"))
struct HTTP3CLITests {
    /// The first transaction of the first task of a `--json` report.
    static func firstTransaction(_ report: [String: Any]) throws -> [String: Any] {
        try #require(((report["probes"] as? [[String: Any]])?.first?["transactionMetrics"] as? [[String: Any]])?.first)
    }

    /// `sonde probe --json --cacert <the server's CA> --output-dir <a new folder> ARGUMENTS`.
    static func probe(_ server: H3Server, _ arguments: [String], output: String = Harness.temporaryDirectory()) throws -> Harness.Result {
        try Harness.sonde(["probe", "--json", "--cacert", server.caFile, "--output-dir", output] + arguments, timeout: 60)
    }

    @Test func http3OnlySpeaksH3AndRecordsTheQUICConnection() throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--count", "2", "--cacert", server.caFile, "--output-dir",
                                        output, "https://127.0.0.1:\(server.quicPort)/1k.bin"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let tasks = try #require(report["probes"] as? [[String: Any]])
        #expect(tasks.count == 2)
        let transactions = try tasks.map { try #require(($0["transactionMetrics"] as? [[String: Any]])?.first) }
        for transaction in transactions {
            #expect(transaction["networkProtocolName"] as? String == "h3")
            #expect(transaction["remoteAddress"] as? String == "127.0.0.1")
            #expect(transaction["remotePort"] as? Int == server.quicPort)
            #expect((transaction["localPort"] as? Int ?? 0) > 0)
            #expect(transaction["countOfResponseBodyBytesReceived"] as? Int == 1024)
            #expect(transaction["negotiatedTLSProtocolVersion"] as? String == "TLSv1.3")
            #expect((transaction["negotiatedTLSCipherSuite"] as? String)?.hasPrefix("TLS_") == true)
        }
        // The first task opens the QUIC connection (connect and TLS phases), the second reuses it.
        let cold = try #require(transactions[0]["phases"] as? [String: Any])
        #expect(cold["connect"] is Double && cold["tls"] is Double)
        #expect(transactions[0]["isReusedConnection"] as? Bool == false)
        #expect(transactions[1]["isReusedConnection"] as? Bool == true)
        #expect(transactions[1]["localPort"] as? Int == transactions[0]["localPort"] as? Int)
        let summary = try #require(report["summary"] as? [String: Any])
        #expect((summary["protocols"] as? [String: Any])?["h3"] as? Int == 2)
        let validation = try Harness.validate(try Harness.entries(of: output)
            .map { output + "/" + $0 + "/report.json" })
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
    }

    /// The race libcurl lost says so, with libcurl's reason, in report.json (every transaction on
    /// that connection), the terminal (once, where it ran), the HTML (escaped) and HAR.
    @Test func http3FallsBackToTCPWhenNothingAnswersOnUDP() throws {
        let server = try H3Server()
        defer { server.stop() }
        // The TCP port: nothing listens on UDP there, so QUIC gets ICMP port unreachable and TCP wins.
        let output = Harness.temporaryDirectory()
        let url = "https://127.0.0.1:\(server.tcpPort)/"
        let result = try Self.probe(server, ["--http3", "--count", "2", url], output: output)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let transactions = (report["probes"] as? [[String: Any]] ?? []).compactMap { ($0["transactionMetrics"] as? [[String: Any]])?.first }
        #expect(transactions.count == 2)
        let transaction = try #require(transactions.first)
        #expect(["h2", "http/1.1"].contains(transaction["networkProtocolName"] as? String ?? ""))
        #expect(transaction["remotePort"] as? Int == server.tcpPort)
        #expect(transaction["negotiatedTLSProtocolVersion"] is String)
        let reason = try #require((transaction["http3Fallback"] as? [String: Any])?["reason"] as? String)
        // libcurl 8.23: "sendmsg() returned -1 (errno 111); QUIC connect to 127.0.0.1 port N failed: Failed sending data to the peer"
        #expect(reason.contains("QUIC") && reason.contains("\(server.tcpPort)"), "\(reason)")
        #expect(reason.contains("errno 111"), "\(reason)")
        // The reused transaction rides the same fallback connection and says so too.
        #expect(transactions[1]["isReusedConnection"] as? Bool == true)
        #expect((transactions[1]["http3Fallback"] as? [String: Any])?["reason"] as? String == reason)
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("HTTP/3 fell back to TCP"))
        #expect(html.contains("QUIC connect to 127.0.0.1 port \(server.tcpPort) failed"))
        let (check, _) = try CLIReportFormatTests.check(folder)
        #expect(check.status == 0, "\(check.stderr)")

        // The terminal view: the reason under the transaction that ran the race, "fell back" on both.
        let terminal = try Harness.sonde(["probe", "--http3", "--count", "2", "--cacert", server.caFile, "--output-dir",
                                          Harness.temporaryDirectory(), url], timeout: 60)
        #expect(terminal.status == 0, "\(terminal.stderr)")
        #expect(terminal.stdout.components(separatedBy: "↩ HTTP/3 fell back to TCP: ").count == 2, "\(terminal.stdout)")
        #expect(terminal.stdout.components(separatedBy: "(fell back from h3)").count == 3, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("QUIC connect to 127.0.0.1 port \(server.tcpPort) failed"))
    }

    /// A race QUIC won records no fallback.
    @Test func aRaceQUICWinsRecordsNoFallback() throws {
        let server = try H3Server()
        defer { server.stop() }
        // hypercorn's QUIC port: libcurl's race reaches it first (TCP has nothing there to win with).
        let result = try Self.probe(server, ["--http3", "https://127.0.0.1:\(server.quicPort)/"])
        #expect(result.status == 0, "\(result.stderr)")
        let transaction = try Self.firstTransaction(try Harness.json(result.stdout))
        #expect(transaction["networkProtocolName"] as? String == "h3")
        #expect(transaction["http3Fallback"] is NSNull)
    }

    /// `--http3-only` against a port with no UDP listener: no fallback, a classified refusal.
    @Test func http3OnlyAgainstAClosedUDPPortIsConnectionRefused() throws {
        let server = try H3Server()
        defer { server.stop() }
        let result = try Self.probe(server, ["--http3-only", "https://127.0.0.1:\(server.tcpPort)/"])
        #expect(result.status == 1, "\(result.stderr)")
        let task = try #require((try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first)
        let error = try #require(task["error"] as? [String: Any])
        #expect(error["code"] as? String == "connectionRefused", "\(error)")
        #expect(error["reason"] as? String == "quic", "\(error)")
        #expect((error["message"] as? String)?.contains("UDP") == true, "\(error)")
        let transaction = try Self.firstTransaction(try Harness.json(result.stdout))
        #expect(transaction["http3Fallback"] is NSNull)
        #expect(transaction["connectionID"] is NSNull)
    }

    /// libcurl's QUIC milestones (8.6+, curl PR #12678): connect = the first packet from the
    /// server, appconnect = handshake done. Both phases exist on a new QUIC connection and
    /// neither on a reused one; the phases add up.
    @Test func quicPhasesFollowLibcurlsMilestones() throws {
        let server = try H3Server()
        defer { server.stop() }
        let result = try Self.probe(server, ["--http3-only", "--count", "3", "https://127.0.0.1:\(server.quicPort)/1k.bin"])
        #expect(result.status == 0, "\(result.stderr)")
        let transactions = (try Harness.json(result.stdout)["probes"] as? [[String: Any]] ?? [])
            .compactMap { ($0["transactionMetrics"] as? [[String: Any]])?.first }
        #expect(transactions.count == 3)
        #expect(transactions.compactMap { $0["connectionID"] as? Int } == [1, 1, 1])
        for (index, transaction) in transactions.enumerated() {
            let phases = try #require(transaction["phases"] as? [String: Any])
            let sum = ["dns", "connect", "tls", "send", "wait", "receive"].compactMap { phases[$0] as? Double }.reduce(0, +)
            #expect(abs(sum - (phases["total"] as? Double ?? -1)) < 0.01, "\(phases)")
            if index == 0 {
                #expect((phases["connect"] as? Double ?? -1) > 0 && (phases["tls"] as? Double ?? -1) >= 0, "\(phases)")
            } else {
                #expect(phases["connect"] is NSNull && phases["tls"] is NSNull, "\(phases)")
            }
        }
    }

    /// `--capture` of an `--http3-only` run: the filter names the run's UDP flow, each QUIC
    /// connection (three on one 4-tuple: libcurl binds QUIC sockets to the port block, so
    /// `--no-reuse` reuses the 4-tuple at once) is in `quicFlows`, every h3 transaction is matched
    /// to its own and agrees with it, and tshark's QUIC dissector on the same file counts the
    /// same datagrams, bytes and Initial / Handshake / 1-RTT packets per connection, the same
    /// connection IDs and version, and the same first Initial → first server packet time.
    @Test(.enabled(if: getuid() == 0, "live capture needs root"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark"), "needs tshark"))
    func quicConnectionsInTheCaptureAgreeWithTshark() throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Self.probe(server, ["--http3-only", "--capture", "--count", "3", "--no-reuse",
                                             "https://127.0.0.1:\(server.quicPort)/1k.bin"], output: output)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let capture = try #require((report["captures"] as? [[String: Any]])?.first)
        #expect((capture["filter"] as? String)?.contains("udp port \(server.quicPort)") == true, "\(capture["filter"] ?? "")")
        #expect(capture["drops"] as? Int == 0 && capture["otherPackets"] as? Int == 0)
        let flows = try #require(capture["quicFlows"] as? [[String: Any]])
        #expect(flows.count == 3, "\(flows.map { $0["tuple"] ?? "" })")
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 3)
        for transaction in transactions {
            let evidence = try #require(transaction["capture"] as? [String: Any], "every h3 transaction is matched to its QUIC connection")
            #expect(evidence["transport"] as? String == "quic" && evidence["clientInitialSeen"] as? Bool == true)
            #expect(evidence["flow"] as? String == "127.0.0.1:\(transaction["localPort"] as? Int ?? 0) > 127.0.0.1:\(server.quicPort)")
            #expect(evidence["reuseAgrees"] as? Bool == true, "\(evidence)")
            // libcurl marks a QUIC connect at its first *read* that does not fail, even one that
            // finds nothing (lib/vquic/vquic.c, vquic_recv_packets): on a loaded machine its
            // connect phase can end before the server's first datagram. sonde reports that as a
            // disagreement, which is its job; the test then wants the early end, nothing else.
            if evidence["connectAgrees"] as? Bool == false {
                let phases = transaction["phases"] as? [String: Any] ?? [:]
                let connect = phases["connect"] as? Double ?? .infinity
                #expect(connect + 1 < (evidence["initialRttMs"] as? Double ?? 0),
                        "a disagreement other than libcurl's early connect mark: \(evidence) vs \(phases)")
            } else {
                #expect(evidence["connectAgrees"] as? Bool == true, "\(evidence) vs \(transaction["phases"] ?? "")")
            }
            #expect(evidence["tlsAgrees"] as? Bool == true, "\(evidence) vs \(transaction["phases"] ?? "")")
            #expect((evidence["packets"] as? [[String: Any]])?.first?["flags"] as? String == "initial")
        }
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        #expect(try String(contentsOfFile: folder + "/report.html", encoding: .utf8).contains("QUIC connection (client &gt; server)"))

        // tshark's QUIC dissector on the same file, one line per datagram.
        let tshark = try Harness.run("/usr/bin/tshark", ["-r", folder + "/capture.pcap", "-Y", "quic", "-T", "fields", "-E", "separator=/t",
                                                         "-e", "frame.time_epoch", "-e", "udp.srcport", "-e", "udp.length", "-e", "ip.len",
                                                         "-e", "quic.connection.number", "-e", "quic.header_form", "-e", "quic.long.packet_type",
                                                         "-e", "quic.version", "-e", "quic.dcid", "-e", "quic.scid"], timeout: 120)
        #expect(tshark.status == 0, "\(tshark.stderr)")
        var seen: [String: (up: [Int], down: [Int], initialAt: Double?, serverAt: Double?, version: String, dcid: String, scid: String)] = [:]
        var order: [String] = []
        for line in tshark.stdout.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 10, let time = Double(f[0]), let udpLength = Int(f[2]), let ipLength = Int(f[3]) else { continue }
            let forms = f[5].split(separator: ",").map(String.init), types = f[6].split(separator: ",").map(String.init)
            let fromClient = f[1] != "\(server.quicPort)"
            // datagrams, IP bytes, UDP payload bytes, QUIC packets, Initial, Handshake, short header
            let counts = [1, ipLength, udpLength - 8, forms.count, types.filter { $0 == "0" }.count, types.filter { $0 == "2" }.count,
                          forms.filter { $0 == "0" }.count]
            if seen[f[4]] == nil {
                order.append(f[4])
                seen[f[4]] = ([0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], nil, nil, String(f[7].split(separator: ",").first ?? ""),
                              String(f[8].split(separator: ",").first ?? ""), String(f[9].split(separator: ",").first ?? ""))
            }
            if fromClient {
                seen[f[4]]!.up = zip(seen[f[4]]!.up, counts).map { $0 + $1 }
                if types.first == "0", seen[f[4]]!.initialAt == nil { seen[f[4]]!.initialAt = time }
            } else {
                seen[f[4]]!.down = zip(seen[f[4]]!.down, counts).map { $0 + $1 }
                if seen[f[4]]!.serverAt == nil { seen[f[4]]!.serverAt = time }
            }
        }
        #expect(order.count == flows.count, "tshark: \(order.count) QUIC connections")
        for (number, flow) in zip(order, flows) {
            let wire = seen[number]!
            func counts(_ direction: Any?) -> [Int] {
                let d = direction as? [String: Any] ?? [:]
                return ["datagrams", "bytes", "payloadBytes", "packets", "initialPackets", "handshakePackets", "shortHeaderPackets"].map { d[$0] as? Int ?? -1 }
            }
            #expect(counts(flow["clientToServer"]) == wire.up, "connection \(number) client → server")
            #expect(counts(flow["serverToClient"]) == wire.down, "connection \(number) server → client")
            #expect(flow["version"] as? String == wire.version)
            #expect(flow["originalDestinationConnectionId"] as? String == wire.dcid.replacingOccurrences(of: ":", with: ""))
            #expect(flow["clientConnectionId"] as? String == wire.scid.replacingOccurrences(of: ":", with: ""))
            let rtt = try #require(flow["initialRttMs"] as? Double)
            let tsharkRtt = ((wire.serverAt ?? 0) - (wire.initialAt ?? 0)) * 1000
            #expect(abs(rtt - tsharkRtt) < 0.01, "initial RTT: sonde \(rtt) ms, tshark \(tsharkRtt) ms")
            #expect(wire.up[4] > 0 && wire.up[5] > 0 && wire.down[5] > 0 && wire.up[6] > 0, "the handshake is in the capture: \(wire)")
        }
        // `sonde analyze` reads the same file to the same QUIC connections, and says so.
        let analyze = try Harness.sonde(["analyze", "--output-dir", Harness.temporaryDirectory(), folder + "/capture.pcap"])
        #expect(analyze.status == 0 && analyze.stdout.contains("3 QUIC connections") && analyze.stdout.contains("QUICv1"), "\(analyze.stdout)")
    }

    /// `sonde resume --http3-only`: the verdict and interrupted-download trials over QUIC against
    /// hypercorn, every request of them answered over HTTP/3 (hypercorn's own access log says so).
    @Test(arguments: ["abort", "drop", "kill"])
    func resumeTrialsRunOverHTTP3(kind: String) throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", "--json", "--http3-only", "--cacert", server.caFile, "--trials", "2", "--kinds", kind,
                                        "--seed", "7", "--output-dir", output, "https://127.0.0.1:\(server.quicPort)/blob"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let verdict = try #require((report["resumeVerdicts"] as? [[String: Any]])?.first)
        #expect(verdict["resumable"] as? Bool == true, "\(verdict)")
        let trials = report["resumeTrials"] as? [[String: Any]] ?? []
        #expect(trials.count == 2 && trials.allSatisfy { $0["intact"] as? Bool == true }, "\(trials)")
        let log = try String(contentsOfFile: server.directory + "/access.log", encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("/blob") }
        #expect(!log.isEmpty && log.allSatisfy { $0.contains("/blob 3 ") }, "every request over HTTP/3: \(log)")
        #expect(log.contains { $0.hasSuffix(" 206") }, "the resumes were answered 206: \(log)")
    }

    @Test func resumeRefusesHTTP3OnPlainHTTP() throws {
        let result = try Harness.sonde(["resume", "--http3", "--check", "http://127.0.0.1:9/blob", "--output-dir", Harness.temporaryDirectory()])
        #expect(result.status == 64 && result.stderr.contains("https://"), "\(result.stderr)")
    }

    @Test func anUnknownCAOverQUICIsATLSFailure() throws {
        let server = try H3Server()
        defer { server.stop() }
        // TLS verification is on by default: the test CA is in no trust store.
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--output-dir", Harness.temporaryDirectory(),
                                        "https://127.0.0.1:\(server.quicPort)/"], timeout: 60)
        #expect(result.status == 1, "\(result.stderr)")
        let task = try #require((try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first)
        let error = try #require(task["error"] as? [String: Any])
        #expect(error["code"] as? String == "tlsFailure", "\(error)")
    }

    /// The transactions of a `--json` probe report, task by task (first hop of each).
    static func transactions(_ result: Harness.Result) throws -> [[String: Any]] {
        (try Harness.json(result.stdout)["probes"] as? [[String: Any]] ?? []).compactMap { ($0["transactionMetrics"] as? [[String: Any]])?.first }
    }

    /// Alt-Svc as URLSession does it, against hypercorn (h2 on its TCP port advertising
    /// `h3=":QUIC"; ma=3600`): without --http3, the first connection is h2; with --no-reuse every
    /// later task opens a new connection, which goes to the alternative over QUIC and says which
    /// header sent it there; hypercorn's access log shows the same protocols.
    @Test func altSvcMovesTheNextNewConnectionToH3() throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Self.probe(server, ["--no-reuse", "--count", "3", "https://127.0.0.1:\(server.tcpPort)/1k.bin"], output: output)
        #expect(result.status == 0, "\(result.stderr)")
        let transactions = try Self.transactions(result)
        #expect(transactions.map { $0["networkProtocolName"] as? String ?? "-" } == ["h2", "h3", "h3"], "\(transactions)")
        #expect(transactions.map { $0["remotePort"] as? Int ?? 0 } == [server.tcpPort, server.quicPort, server.quicPort])
        #expect(transactions[0]["altSvc"] is NSNull)
        for transaction in transactions.dropFirst() {
            let altSvc = try #require(transaction["altSvc"] as? [String: Any], "\(transaction)")
            #expect(altSvc["source"] as? String == "response")
            #expect(altSvc["alternative"] as? String == "127.0.0.1:\(server.quicPort)")
            #expect((altSvc["header"] as? String)?.contains("h3=\":\(server.quicPort)\"") == true, "\(altSvc)")
            #expect(altSvc["advertisedOnConnection"] as? Int == transactions[0]["connectionID"] as? Int)
            #expect(altSvc["advertisedOver"] as? String == "h2")
            #expect(transaction["isReusedConnection"] as? Bool == false)
        }
        let summary = try #require(try Harness.json(result.stdout)["summary"] as? [String: Any])
        let byProtocol = try #require(summary["byProtocol"] as? [String: Any])
        #expect(Set(byProtocol.keys) == ["h2", "h3"], "\(byProtocol)")
        let log = try String(contentsOfFile: server.directory + "/access.log", encoding: .utf8)
            .split(separator: "\n").compactMap { line -> Substring? in
                let words = line.split(separator: " ")  // "[date] [pid] [INFO] GET /1k.bin 2 200": the protocol follows the path
                return words.firstIndex(of: "/1k.bin").flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
            }
        #expect(log == ["2", "3", "3"], "hypercorn's protocols: \(log)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("h3 through Alt-Svc") && html.contains("Phases by protocol"))
        let (check, _) = try CLIReportFormatTests.check(folder)
        #expect(check.status == 0, "\(check.stderr)")

        // The terminal says it once, under the transaction that opened the QUIC connection.
        let terminal = try Harness.sonde(["probe", "--no-reuse", "--count", "2", "--cacert", server.caFile, "--output-dir",
                                          Harness.temporaryDirectory(), "https://127.0.0.1:\(server.tcpPort)/1k.bin"], timeout: 60)
        #expect(terminal.stdout.components(separatedBy: "↗ h3 through Alt-Svc:").count == 2, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("p50 by protocol"), "\(terminal.stdout)")
    }

    /// URLSession's rule (not libcurl's, which moves to the alternative at once): an open h2
    /// connection keeps being reused after the Alt-Svc; `--no-alt-svc` and `--http2` never move.
    @Test func anOpenConnectionIsReusedAndAltSvcCanBeTurnedOff() throws {
        let server = try H3Server()
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.tcpPort)/1k.bin"
        let reused = try Self.transactions(try Self.probe(server, ["--count", "3", url]))
        #expect(reused.map { $0["networkProtocolName"] as? String ?? "-" } == ["h2", "h2", "h2"], "\(reused)")
        #expect(reused.map { $0["connectionID"] as? Int ?? 0 } == [1, 1, 1])
        for flag in ["--no-alt-svc", "--http2"] {
            let pinned = try Self.transactions(try Self.probe(server, [flag, "--no-reuse", "--count", "3", url]))
            #expect(pinned.map { $0["networkProtocolName"] as? String ?? "-" } == ["h2", "h2", "h2"], "\(flag): \(pinned)")
            #expect(pinned.allSatisfy { $0["altSvc"] is NSNull })
        }
    }

    /// `--alt-svc FILE` keeps the cache across runs (libcurl's format, written without following
    /// links): the second run's first connection is already h3, from the file.
    @Test func theAltSvcFileCarriesTheCacheToTheNextRun() throws {
        let server = try H3Server()
        defer { server.stop() }
        let folder = Harness.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/alt-svc.txt"
        let url = "https://127.0.0.1:\(server.tcpPort)/1k.bin"
        let first = try Self.transactions(try Self.probe(server, ["--alt-svc", file, url]))
        #expect(first.first?["networkProtocolName"] as? String == "h2")
        let cache = try String(contentsOfFile: file, encoding: .utf8)
        #expect(cache.contains("h2 127.0.0.1 \(server.tcpPort) h3 127.0.0.1 \(server.quicPort) "), "\(cache)")
        let second = try Self.transactions(try Self.probe(server, ["--alt-svc", file, url]))
        #expect(second.first?["networkProtocolName"] as? String == "h3", "\(second)")
        #expect((second.first?["altSvc"] as? [String: Any])?["source"] as? String == "cacheFile")
        // A link planted at the file's name is refused, never followed.
        let link = folder + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder + "/victim.txt")
        let refused = try Self.probe(server, ["--alt-svc", link, url])
        #expect(refused.status == 64 && refused.stderr.contains("not a regular file"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/victim.txt"))
        let empty = try Self.probe(server, ["--alt-svc", "", url])
        #expect(empty.status == 64 && empty.stderr.contains("give a file name"), "\(empty.stderr)")
    }
}

/// hypercorn on loopback with a fresh CA (scripts/h3-fixture.sh), stopped by `stop()`.
final class H3Server {
    let directory = Harness.temporaryDirectory()
    let tcpPort = Harness.freePort()
    let quicPort = Harness.freePort()
    var caFile: String { directory + "/ca.pem" }

    static let available: Bool = {
        (try? Harness.run("/usr/bin/env", ["python3", "-c", "import hypercorn, aioquic"], timeout: 30).status) == 0
    }()

    init() throws {
        let result = try Harness.run("/bin/bash", [Harness.root + "/scripts/h3-fixture.sh", directory, "\(tcpPort)", "\(quicPort)"],
                                     timeout: 60)
        guard result.status == 0 else { throw Nginx.FixtureError(message: "hypercorn did not start: \(result.stderr)") }
    }

    func stop() {
        if let text = try? String(contentsOfFile: directory + "/hypercorn.pid", encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGTERM)
        }
    }
}
