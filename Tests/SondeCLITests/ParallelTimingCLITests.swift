import Foundation
import Testing

/// `--parallel` phases checked against the wire: tcpdump (an independent capture) records the run,
/// and each transaction's dates must sit where its packets are. Needs tcpdump's privilege (CI runs
/// as root).
@Suite(.serialized) struct ParallelTimingCLITests {
    /// One packet of `tcpdump -tt -nr` output between 127.0.0.1 ports.
    struct Packet {
        var at: Int64  // wall-clock µs
        var sourcePort: Int
        var destinationPort: Int
        var syn: Bool
        var ack: Bool
        var length: Int
    }

    static func packets(_ file: String) throws -> [Packet] {
        let dump = try Harness.run("/usr/bin/tcpdump", ["-tt", "-nr", file])
        return dump.stdout.split(separator: "\n").compactMap { line -> Packet? in
            // 1763917444.123456 IP 127.0.0.1.45678 > 127.0.0.1.34481: Flags [S], seq 1, ..., length 0
            let words = line.split(separator: " ")
            guard words.count > 6, let seconds = Double(words[0]), words[1] == "IP",
                  let source = words[2].split(separator: ".").last.flatMap({ Int($0) }),
                  let destination = words[4].dropLast().split(separator: ".").last.flatMap({ Int($0) }),
                  let flags = line.range(of: "Flags [").map({ line[$0.upperBound...].prefix { $0 != "]" } }) else { return nil }
            let length = line.range(of: "length ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) } ?? 0
            return Packet(at: Int64((seconds * 1_000_000).rounded()), sourcePort: source, destinationPort: destination,
                          syn: flags.contains("S"), ack: flags.contains("."), length: length)
        }
    }

    static func micros(_ value: Any?) -> Int64? {
        guard let text = value as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // ISO8601DateFormatter keeps milliseconds only: take the microseconds from the text.
        guard let dot = text.firstIndex(of: "."), let date = formatter.date(from: text) else { return nil }
        let fraction = text[text.index(after: dot)...].prefix { $0.isNumber }
        let micros = Int64(fraction.padding(toLength: 6, withPad: "0", startingAt: 0)) ?? 0
        return Int64(date.timeIntervalSince1970.rounded(.down)) * 1_000_000 + micros
    }

    /// Five tasks against an HTTP/1.1 server that answers after 700 ms, five at once, with a
    /// --timeout of 1 s: every SYN leaves at the start (nothing waits for the first response),
    /// each transaction's connect starts where its SYN is, its response starts where the server's
    /// first bytes are, and none times out.
    @Test func http11PhasesAgreeWithTheCapture() throws {
        let target = try TargetProcess.get()
        let port = Int(target.http.split(separator: ":").last!)!
        let work = Harness.temporaryDirectory()
        let file = work + "/parallel.pcap"
        var report: [String: Any] = [:]
        try CLICaptureTests.capture("/usr/bin/tcpdump", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", file, "tcp port \(port)"],
                                    file: file, ready: "listening on", connections: 5) {
            let result = try Harness.sonde(["probe", "--json", "--parallel", "5", "--count", "5", "--timeout", "1",
                                            "--output-dir", work + "/reports", target.http + "/delay/700"])
            #expect(result.status == 0, "\(result.stderr)")
            report = try Harness.json(result.stdout)
        }
        let wire = try Self.packets(file)
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 5)
        var syns: [Int64] = []
        for t in transactions {
            let local = try #require(t["localPort"] as? Int)
            let syn = try #require(wire.first { $0.sourcePort == local && $0.syn && !$0.ack }, "the SYN of port \(local)")
            let answer = try #require(wire.first { $0.sourcePort == port && $0.destinationPort == local && $0.length > 0 })
            syns.append(syn.at)
            let connectStart = try #require(Self.micros(t["connectStartDate"]))
            let connectEnd = try #require(Self.micros(t["connectEndDate"]))
            let responseStart = try #require(Self.micros(t["responseStartDate"]))
            // 2 ms of slack for the two clocks' reading; the response side allows for the poll's wake-up.
            #expect(syn.at >= connectStart - 2_000 && syn.at <= connectEnd + 2_000,
                    "SYN at \(syn.at), connect \(connectStart)...\(connectEnd)")
            #expect(responseStart >= answer.at - 2_000 && responseStart <= answer.at + 50_000,
                    "first response bytes at \(answer.at), responseStartDate \(responseStart)")
            let phases = try #require(t["phases"] as? [String: Any])
            #expect((phases["receive"] as? Double ?? .infinity) < 50, "a few bytes arrive at once: \(phases)")
            #expect((t["queue"] as? Double ?? .infinity) < 50, "no task waits for another: \(t["queue"] ?? "")")
        }
        #expect(syns.count == 5 && syns.max()! - syns.min()! < 300_000, "every SYN leaves at the start: \(syns)")
    }

    /// HTTP/2 over TLS, four at once: one connection (one SYN, at the first transaction's connect);
    /// the other first hops wait in sonde's queue until it is ready, and every request and response
    /// lies inside the connection's life on the wire.
    @Test func http2QueueAndPhasesAgreeWithTheCapture() throws {
        let target = try TargetProcess.get()
        let port = Int(target.https.split(separator: ":").last!)!
        let work = Harness.temporaryDirectory()
        let file = work + "/h2.pcap"
        var report: [String: Any] = [:]
        try CLICaptureTests.capture("/usr/bin/tcpdump", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", file, "tcp port \(port)"],
                                    file: file, ready: "listening on", connections: 1) {
            let result = try Harness.sonde(["probe", "--json", "--parallel", "4", "--count", "8", "--cacert", target.caFile,
                                            "--timeout", "2", "--output-dir", work + "/reports", target.https + "/delay/200"])
            #expect(result.status == 0, "\(result.stderr)")
            report = try Harness.json(result.stdout)
        }
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 8)
        // The shared target serves other suites running beside this one: only this run's flows count.
        let ports = Set(transactions.compactMap { $0["localPort"] as? Int })
        #expect(ports.count == 1, "one connection for every stream: local ports \(ports.sorted())")
        let wire = try Self.packets(file).filter { ports.contains($0.sourcePort) || ports.contains($0.destinationPort) }
        let synPackets = wire.filter { $0.destinationPort == port && $0.syn && !$0.ack }
        #expect(synPackets.count == 1, "one connection for every stream: \(synPackets.count) SYNs")
        let syn = try #require(synPackets.first)
        let last = try #require(wire.last)
        let opener = try #require(transactions.first { $0["isReusedConnection"] as? Bool == false })
        let connectStart = try #require(Self.micros(opener["connectStartDate"]))
        let connectEnd = try #require(Self.micros(opener["connectEndDate"]))
        #expect(syn.at >= connectStart - 2_000 && syn.at <= connectEnd + 2_000)
        let firstRound = (report["probes"] as? [[String: Any]] ?? []).filter { ($0["iteration"] as? Int ?? 99) < 4 }
            .compactMap { ($0["transactionMetrics"] as? [[String: Any]])?.first }
        let queued = firstRound.filter { $0["isReusedConnection"] as? Bool == true }
        #expect(queued.count == 3, "the three other first hops waited for the connection")
        let phases = opener["phases"] as? [String: Any] ?? [:]
        let setUp = ["dns", "connect", "tls"].reduce(0.0) { $0 + (phases[$1] as? Double ?? 0) }
        #expect(queued.allSatisfy { ($0["queue"] as? Double ?? 0) >= setUp / 2 }, "each waited about the set-up, \(setUp) ms")
        for t in transactions {
            let request = try #require(Self.micros(t["requestStartDate"]))
            let response = try #require(Self.micros(t["responseEndDate"]))
            #expect(request >= syn.at - 2_000 && response <= last.at + 50_000)
            let phases = try #require(t["phases"] as? [String: Any])
            #expect((phases["wait"] as? Double ?? 0) >= 190 && (phases["receive"] as? Double ?? .infinity) < 50, "\(phases)")
        }
        for t in queued {
            // A queued hop's request leaves once the connection is up: after the opener's TLS.
            let request = try #require(Self.micros(t["requestStartDate"]))
            #expect(request >= connectEnd - 2_000, "request \(request) before the connection was ready at \(connectEnd)")
        }
    }

    /// Eight HTTP/2 streams on one connection to nginx, whose certificate chain is 100 long (its
    /// parse, the engine's bookkeeping for the connection's first transaction, takes milliseconds):
    /// the engine starts the queued requests and reads every stream's response before that work,
    /// so none of them waits for it. Before, the requests left or the responses were read after it.
    @Test func streamsDoNotWaitForTheEnginesBookkeeping() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        var chain = try String(contentsOfFile: nginx.certificate, encoding: .utf8)
        for index in 0..<99 {
            let key = nginx.directory + "/extra\(index).key", certificate = nginx.directory + "/extra\(index).pem"
            let made = try Harness.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                            "-nodes", "-days", "7", "-keyout", key, "-out", certificate,
                                                            "-subj", "/CN=extra \(index)"])
            try #require(made.status == 0, "\(made.stderr)")
            chain += try String(contentsOfFile: certificate, encoding: .utf8)
        }
        try chain.write(toFile: nginx.certificate, atomically: true, encoding: .utf8)
        let pid = try #require(Int32((try String(contentsOfFile: nginx.directory + "/nginx.pid", encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGHUP)
        let url = "https://127.0.0.1:\(nginx.https)/1k.bin"
        let reloaded = Harness.waitFor(seconds: 10) {
            let probe = try? Harness.sonde(["probe", "--json", "-k", "--output-dir", Harness.temporaryDirectory(), url])
            let report = probe.flatMap { try? Harness.json($0.stdout) }
            let first = ((report?["probes"] as? [[String: Any]])?.first?["transactionMetrics"] as? [[String: Any]])?.first
            return (first?["peerCertificates"] as? [Any])?.count == 100
        }
        try #require(reloaded, "nginx did not send the 100-certificate chain")

        let work = Harness.temporaryDirectory()
        let file = work + "/h2.pcap"
        var report: [String: Any] = [:]
        try CLICaptureTests.capture("/usr/bin/tcpdump", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", file, "tcp port \(nginx.https)"],
                                    file: file, ready: "listening on", connections: 1) {
            let result = try Harness.sonde(["probe", "--json", "-k", "--http2", "--parallel", "8", "--count", "8",
                                            "--output-dir", work + "/reports", url])
            #expect(result.status == 0, "\(result.stderr)")
            report = try Harness.json(result.stdout)
        }
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 8)
        let opener = try #require(transactions.first { $0["isReusedConnection"] as? Bool == false })
        let streams = transactions.filter { $0["isReusedConnection"] as? Bool == true }
        #expect(streams.count == 7, "one connection for all eight")
        let openerRequest = try #require(Self.micros(opener["requestStartDate"]))
        let lastRequest = try #require(streams.compactMap { Self.micros($0["requestStartDate"]) }.max())
        let lastResponse = try #require(streams.compactMap { Self.micros($0["responseStartDate"]) }.max())
        // The server's last record before the last response was read: the wire's end of the responses.
        let wire = try Self.packets(file).filter { $0.sourcePort == nginx.https && $0.length > 0 && $0.at <= lastResponse }
        let lastOnWire = try #require(wire.last)
        let phases = streams.map { $0["phases"] ?? "" }
        // Parsing 100 certificates takes 40 ms or more in a debug build; 20 ms of slack for a loaded machine.
        #expect(lastRequest - openerRequest < 20_000, "the queued requests left \(lastRequest - openerRequest) µs after the first: \(phases)")
        #expect(lastResponse - lastOnWire.at < 20_000, "the last response was read \(lastResponse - lastOnWire.at) µs after its bytes came: \(phases)")
    }
}
