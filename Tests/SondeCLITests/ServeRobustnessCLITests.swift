import Foundation
import Testing

/// `sonde serve` where issue 39 found it wanting (items 14 and 17): a slowloris under a hard
/// descriptor limit of 1,024, a history it may read but not write, the reload log's listen
/// address, a config of 10,000 checks, and a hard link planted in a run folder.
@Suite(.serialized) struct ServeRobustnessCLITests {
    typealias Serve = ServeCLITests.Serve

    /// With `ulimit -n 1024` (soft and hard, so nothing can be raised), 1,000 connections that send
    /// nothing made `/-/healthy` time out in 6 of 7 samples. Now the oldest silent connections give
    /// way to new ones: every sample answers at once, also from the same address as the slowloris.
    @Test func healthAnswersBesideASlowlorisUnderAHardLimit() throws {
        let target = try TargetProcess.get()
        let serve = try Serve(config: ServeCLITests.probeConfig(target), wrapper: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        defer { serve.stop() }
        let work = Harness.temporaryDirectory()
        let holder = try Harness.spawn("/usr/bin/env", ["python3", "-c", """
            import socket, time, resource
            resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
            socks = []
            for i in range(1000):
                s = socket.socket(); s.settimeout(5)
                try:
                    s.connect(("127.0.0.1", \(serve.port))); socks.append(s)
                except Exception:
                    s.close()
            print("open", len(socks), flush=True)
            time.sleep(60)
            """], stdout: work + "/holder.out", stderr: work + "/holder.err")
        defer { Harness.stop(holder, signal: SIGKILL) }
        let holderLog = { (try? String(contentsOfFile: work + "/holder.out", encoding: .utf8)) ?? "" }
        #expect(Harness.waitFor(seconds: 40) { holderLog().contains("open") }, "\(holderLog())")
        #expect(serve.logText().contains("per client address"), "the limits line names the per-address cap: \(serve.logText())")
        var samples: [Double] = []
        for _ in 0..<7 {
            let healthy = try ServeHardeningCLITests.timed("\(serve.base)/-/healthy", maxTime: 5)
            samples.append(healthy.status == 200 ? healthy.seconds : 99)
            usleep(300_000)
        }
        #expect(samples.allSatisfy { $0 < 1 }, "/-/healthy beside 1,000 silent connections (hard limit 1,024): \(samples) s")
        // /metrics too.
        let metrics = try ServeHardeningCLITests.timed("\(serve.base)/metrics", maxTime: 5)
        #expect(metrics.status == 200 && metrics.seconds < 1, "\(metrics)")
    }

    /// A history serve may read but not write (here on a read-only mount): `/` showed no trends
    /// though the file reads fine, and runs that were not recorded left
    /// `sonde_serve_write_errors_total` at 0.
    @Test func aReadOnlyHistoryShowsTrendsAndCountsRunsNotRecorded() throws {
        let target = try TargetProcess.get()
        let shelf = Harness.temporaryDirectory(), output = Harness.temporaryDirectory()
        let history = shelf + "/history.sqlite"
        let recorded = try Harness.sonde(["probe", "--history", history, "--output-dir", output + "/earlier", target.http + "/bytes/10"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        // serve in a mount namespace of its own where the history's folder is read-only.
        let config = ServeCLITests.probeConfig(target) + """
        history: \(history)
        checks:
          - {name: ro, kind: probe, urls: ["\(target.http)/bytes/10"], every: 1s}
        """
        let serve = try Serve(config: config, wrapper: ["/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                                                        "mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"", shelf], output: output + "/runs")
        defer { serve.stop() }
        var errors = 0.0
        #expect(Harness.waitFor(seconds: 40) {
            let text = (try? ServeCLITests.fetch("\(serve.base)/metrics").body) ?? ""
            errors = ServeCLITests.samples(text).first { $0.key.hasPrefix("sonde_serve_write_errors_total{") && $0.key.contains("check=\"ro\"") }?.value ?? 0
            return errors >= 3
        }, "runs not added to the read-only history counted: \(errors); log: \(serve.errorText())")
        let index = try ServeCLITests.fetch("\(serve.base)/")
        #expect(index.status == 200 && index.body.contains("probe \(target.http)/bytes/10"), "the history's trends on /: \(index.body.prefix(600))")
        #expect(serve.errorText().contains("read only"), "\(serve.errorText())")
    }

    /// The reload log named the last config's `listen:`, not the address serve listens on.
    @Test func theReloadLogNamesTheAddressInForce() throws {
        let target = try TargetProcess.get()
        let serve = try Serve(config: "listen: 127.0.0.1:19991\n" + ServeCLITests.probeConfig(target))
        defer { serve.stop() }
        for port in [19992, 19993] {
            FileManager.default.createFile(atPath: serve.configPath, contents: Data(("listen: 127.0.0.1:\(port)\n" + ServeCLITests.probeConfig(target)).utf8))
            let before = serve.logText().components(separatedBy: "reloaded").count
            kill(serve.pid, SIGHUP)
            #expect(Harness.waitFor(seconds: 10) { serve.logText().components(separatedBy: "reloaded").count > before }, "\(serve.errorText())")
        }
        let lines = serve.errorText().split(separator: "\n").filter { $0.contains("reload: listen:") }
        #expect(lines.count == 2, "\(serve.errorText())")
        for line in lines {
            #expect(line.contains("127.0.0.1:\(serve.port)") && !line.contains("1999"), "\(line)")
        }
    }

    /// 10,000 checks were refused as an "alias bomb" (5,000 got the right "at most 1000 checks").
    @Test func tenThousandChecksAreRefusedForTheirNumber() throws {
        let work = Harness.temporaryDirectory()
        for count in [5000, 10_000] {
            var config = "checks:\n"
            for index in 0..<count { config += "  - {name: c\(index), kind: probe, urls: [\"http://127.0.0.1:9/\"], every: 1m}\n" }
            FileManager.default.createFile(atPath: work + "/sonde.yaml", contents: Data(config.utf8))
            let result = try Harness.sonde(["serve", "--config", work + "/sonde.yaml", "--listen", "127.0.0.1:0", "--output-dir", work + "/runs"], timeout: 60)
            #expect(result.status == 64 && result.stderr.contains("at most 1000 checks") && !result.stderr.contains("alias"),
                    "\(count) checks: \(result.status) \(result.stderr.prefix(400))")
        }
    }

    /// A mistyped module key and a bad value refuse the config (64) with both problems at their
    /// place, the key with the nearest of its section's keys (from the module key table).
    @Test func aMistypedModuleKeyIsRefusedWithTheNearestKey() throws {
        let work = Harness.temporaryDirectory()
        let config = "modules:\n  h: {prober: http, http: {valid_status_code: [200], preferred_ip_protocol: ip5}}\n"
            + "  t: {prober: tcp, tcp: {query_respons: []}}\n"
        FileManager.default.createFile(atPath: work + "/sonde.yaml", contents: Data(config.utf8))
        let result = try Harness.sonde(["serve", "--config", work + "/sonde.yaml", "--listen", "127.0.0.1:0", "--output-dir", work + "/runs"], timeout: 30)
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        for expected in ["sonde.yaml:2:28: modules.h.http: unknown key 'valid_status_code' (allowed: method,",
                         "): did you mean valid_status_codes?", "sonde.yaml:2:77: modules.h.http.preferred_ip_protocol: 'ip5' is not ip4 or ip6",
                         "sonde.yaml:3:26: modules.t.tcp: unknown key 'query_respons'", "did you mean query_response?"] {
            #expect(result.stderr.contains(expected), "no \(expected) in \(result.stderr)")
        }
    }

    /// A hard link named report.html in a run folder was served (a symbolic link was not).
    @Test func aHardLinkInARunFolderIsNotServed() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let secret = output + "/secret.txt"
        FileManager.default.createFile(atPath: secret, contents: Data("sekrit-hard-link\n".utf8))
        try FileManager.default.createDirectory(atPath: output + "/planted", withIntermediateDirectories: true)
        #expect(link(secret, output + "/planted/report.html") == 0)
        try FileManager.default.createDirectory(atPath: output + "/real", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: output + "/real/report.html", contents: Data("<p>real</p>".utf8))
        let serve = try Serve(config: ServeCLITests.probeConfig(target), output: output)
        defer { serve.stop() }
        #expect(try ServeCLITests.fetch("\(serve.base)/runs/real/report.html").body.contains("real"))
        let planted = try ServeCLITests.fetch("\(serve.base)/runs/planted/report.html")
        #expect(planted.status == 404 && !planted.body.contains("sekrit"), "\(planted)")
    }
}
