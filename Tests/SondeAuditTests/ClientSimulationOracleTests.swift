import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// The client simulation against testssl.sh 3.0.8's (`testssl --client-simulation`, Debian's
/// package) on 8 openssl s_server offers (scripts/client-sim-servers.sh: RSA and ECDSA P-384
/// leaves, Ed25519, TLS 1.3 only, TLS 1.2 CBC only, ffdhe2048 only, ChaCha20 only, a modern
/// default), for the clients both tables know: the same (version, suite) or "no connection" on
/// every pair. testssl.sh's table is read from the installed package at run time (the oracle's
/// input; none of it is in sonde). A policy refusal (ATS on the leaf) counts as connected here:
/// testssl.sh judges the handshake only. The agreement table is written to `$SONDE_CLIENTS_TABLE`
/// (default: .build/client-simulation-agreement.md) and put in docs/audit.md.
@Suite(.serialized) struct ClientSimulationOracleTests {
    /// sonde's profile → testssl.sh's client of the same stack (`names` in client-simulation.txt).
    static let pairs: [(profile: String, testssl: String)] = [
        ("ios-12.2", "Safari 12.1 (iOS 12.2)"),
        ("ios-17", "Safari 15.4 (macOS 12.3.1)"),
        ("android-7", "Android 7.0 (native)"),
        ("android-9", "Android 8.1 (native)"),
        ("android-10", "Android 10.0 (native)"),
        ("android-12", "Android 12 (native)"),
        ("curl-openssl-3", "OpenSSL 3.0.3 (git)"),
    ]

    /// testssl.sh's `short` id of each client name, from the installed table.
    static func shortNames() -> [String: String] {
        guard let text = try? String(contentsOfFile: "/etc/testssl/client-simulation.txt", encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        var name: String?
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("names+=(\"") { name = String(trimmed.dropFirst(9).dropLast(2)) }
            if trimmed.hasPrefix("short+=(\""), let current = name { result[current] = String(trimmed.dropFirst(9).dropLast(2)) }
        }
        return result
    }

    /// testssl.sh's verdict per short id: "TLSv1.3 TLS_AES_128_GCM_SHA256" or "No connection".
    static func testsslVerdicts(port: Int, directory: String) -> ([String: String], String) {
        let json = directory + "/testssl-clients-\(port).json"
        unlink(json)
        let run = AuditCorpus.run("/usr/bin/testssl", ["--quiet", "--warnings", "off", "--color", "0", "--nodns", "min", "--jsonfile", json,
                                                       "--client-simulation", "127.0.0.1:\(port)"], timeout: 600)
        guard let data = FileManager.default.contents(atPath: json),
              let entries = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return ([:], run.output) }
        var verdicts: [String: String] = [:]
        for entry in entries {
            guard let id = entry["id"] as? String, id.hasPrefix("clientsimulation-"), let finding = entry["finding"] as? String else { continue }
            let words = finding.split(separator: " ").prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
            verdicts[String(id.dropFirst("clientsimulation-".count))] = words.joined(separator: " ")
        }
        return (verdicts, run.output)
    }

    /// sonde's verdict in testssl.sh's words (OpenSSL's suite names below TLS 1.3).
    static func verdict(_ simulation: AuditClientSimulation) -> String {
        guard simulation.outcome == .connected || simulation.outcome == .policyRefused, let version = simulation.version,
              let suite = simulation.suite else { return "No connection" }
        let name = version == "TLSv1.3" ? suite : (CipherSuiteCatalog.legacy.first { $0.iana == suite }?.openSSL ?? suite)
        return "\(version) \(name)"
    }

    @Test func handshakeSimulationAgreesWithTestsslClientSimulation() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/testssl"), "testssl.sh is missing: make deps-test installs it")
        let shorts = Self.shortNames()
        for pair in Self.pairs { #expect(shorts[pair.testssl] != nil, "testssl.sh's table has no \(pair.testssl)") }
        let directory = NSTemporaryDirectory() + "sonde-client-sim-\(UUID().uuidString)"
        var base = 0
        for _ in 0..<20 {
            let candidate = Int.random(in: 20_000...60_000)
            if (candidate..<candidate + 8).allSatisfy(AuditCorpus.portIsFree) { base = candidate; break }
        }
        try #require(base > 0, "no 8 free ports")
        let started = AuditCorpus.run("/bin/bash", [AuditCorpus.root + "/scripts/client-sim-servers.sh", directory, "\(base)"], timeout: 60)
        defer {
            let pids = (try? String(contentsOfFile: directory + "/pids", encoding: .utf8)) ?? ""
            for pid in pids.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 { kill(pid, SIGTERM) }
        }
        try #require(started.status == 0, "servers: \(started.output)")
        let table = try String(contentsOfFile: directory + "/servers.tsv", encoding: .utf8)
        let servers = table.split(separator: "\n").compactMap { line -> (name: String, port: Int)? in
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let port = Int(fields[1]) else { return nil }
            return (String(fields[0]), port)
        }
        #expect(servers.count == 8)
        // testssl.sh takes about a minute per server: two at a time.
        let oracle = ProbePool.map(servers, width: 2, deadline: monotonicMicroseconds() + 1_800_000_000) { server in
            Self.testsslVerdicts(port: server.port, directory: directory)
        }
        var lines = ["| client (sonde ↔ testssl.sh) | " + servers.map(\.name).joined(separator: " | ") + " |",
                     "|---|" + servers.map { _ in "---|" }.joined()]
        var agreed = 0, compared = 0
        for pair in Self.pairs {
            guard let profile = TLSClientCatalog.profile(pair.profile), let short = shorts[pair.testssl] else { continue }
            var cells: [String] = []
            for (index, server) in servers.enumerated() {
                let endpoint = TLSEndpoint(host: "127.0.0.1", port: server.port, connectTimeoutMs: 5_000, probeTimeoutMs: 10_000)
                let mine = Self.verdict(ClientSimulator.handshake(profile, endpoint: endpoint))
                let theirs = oracle[index]?.0[short] ?? "not run"
                compared += 1
                if mine == theirs { agreed += 1 } else {
                    Issue.record("\(server.name), \(pair.profile) ↔ \(pair.testssl): sonde \(mine), testssl.sh \(theirs)")
                }
                cells.append(mine == theirs ? (mine == "No connection" ? "✗ both" : "✓ " + mine.replacingOccurrences(of: "TLSv", with: "")) : "**\(mine) ≠ \(theirs)**")
            }
            lines.append("| \(pair.profile) ↔ \(pair.testssl) | " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("\(agreed) of \(compared) verdicts agree.")
        let text = lines.joined(separator: "\n") + "\n"
        print(text)
        let path = ProcessInfo.processInfo.environment["SONDE_CLIENTS_TABLE"] ?? AuditCorpus.root + "/.build/client-simulation-agreement.md"
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(compared == Self.pairs.count * 8 && agreed == compared)
    }

    /// The motivating cases, on the same servers, with sonde's own verdicts (no oracle): the
    /// Ed25519 leaf fails every mobile client, ffdhe2048 only fails every mobile client but the TLS 1.2-only Android ones (RSA key transport),
    /// TLS 1.3 only fails Android 7–9 and iOS 12.0, the P-384 leaf fails Android 7.0.
    @Test func theMotivatingCasesFailTheClientsTheyShould() throws {
        let directory = NSTemporaryDirectory() + "sonde-client-sim-\(UUID().uuidString)"
        var base = 0
        for _ in 0..<20 {
            let candidate = Int.random(in: 20_000...60_000)
            if (candidate..<candidate + 8).allSatisfy(AuditCorpus.portIsFree) { base = candidate; break }
        }
        try #require(base > 0, "no 8 free ports")
        let started = AuditCorpus.run("/bin/bash", [AuditCorpus.root + "/scripts/client-sim-servers.sh", directory, "\(base)"], timeout: 60)
        defer {
            let pids = (try? String(contentsOfFile: directory + "/pids", encoding: .utf8)) ?? ""
            for pid in pids.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 { kill(pid, SIGTERM) }
        }
        try #require(started.status == 0, "servers: \(started.output)")
        let targets = try ClientTargetSet.parse("ios>=15,android>=10").get()
        func audit(_ offset: Int) -> AuditTarget {
            Auditor(options: AuditOptions(only: ["tls.clients"], clientTargets: targets))
                .audit("https://127.0.0.1:\(base + offset)/")
        }
        func failing(_ target: AuditTarget) -> [String] { target.clients.filter { !$0.connected }.map(\.client) }
        let mobile = TLSClientCatalog.all.filter { $0.platform != .library }.map(\.id)
        let ed25519 = audit(2)
        #expect(failing(ed25519) == mobile)
        #expect(ed25519.findings.first { $0.id == "tls.clients" }?.severity == .fail)
        #expect(ed25519.clients.first { $0.client == "ios-17" }?.reason?.contains("ed25519 signatures") == true)
        let ffdhe = audit(5)
        // The TLS 1.2-only Android profiles fall back to RSA key transport; iOS 12.0 under ATS has none.
        #expect(failing(ffdhe) == mobile.filter { !["android-7", "android-9"].contains($0) })
        #expect(ffdhe.clients.first { $0.client == "android-14" }?.reason?.contains("no key-exchange group in common") == true)
        let tls13 = audit(3)
        #expect(failing(tls13) == ["ios-12", "android-7", "android-9"])
        #expect(tls13.findings.first { $0.id == "tls.clients" }?.severity == .info, "only clients outside ios>=15,android>=10 fail")
        #expect(failing(audit(1)) == ["android-7"])
        let modern = audit(7)
        #expect(failing(modern).isEmpty)
        #expect(modern.clients.first { $0.client == "ios-17" }?.signatureScheme == "rsa_pss_rsae_sha256")
        #expect(modern.findings.first { $0.id == "tls.clients" }?.severity == .pass)
    }
}
