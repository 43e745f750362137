import Foundation
import Testing

/// `sonde serve` under attack (issue 27's security items): dot segments past the allow list (nginx
/// resolves them), silent connections and descriptor exhaustion, blocking work on the cooperative
/// pool, a run folder that is a link, user enumeration by timing, `/-/reload`'s answer and an
/// empty config.
@Suite(.serialized) struct ServeHardeningCLITests {
    typealias Serve = ServeCLITests.Serve

    /// `curl`'s status and total time (s) for `url`.
    static func timed(_ url: String, _ extra: [String] = [], maxTime: Double = 60) throws -> (status: Int, seconds: Double) {
        let result = try Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--max-time", "\(maxTime)"]
                                     + extra + [url], timeout: maxTime + 10)
        let fields = result.stdout.split(separator: " ")
        return (Int(fields.first ?? "") ?? 0, Double(fields.last ?? "") ?? maxTime)
    }

    /// The CPU time (user + system, s) process `pid` has used.
    static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields 14 and 15 of stat(5) are the 12th and 13th after the command's ")".
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    // MARK: 1. The allow list and dot segments

    /// `/public/../admin/index` and its percent-encoded forms reached `/admin/index` on nginx
    /// (libcurl and nginx both resolve dot segments after the list matched the raw path).
    @Test func dotSegmentsDoNotPassTheAllowList() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        for folder in ["public", "admin"] {
            try FileManager.default.createDirectory(atPath: nginx.directory + "/www/" + folder, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: nginx.directory + "/www/\(folder)/index", contents: Data("\(folder)\n".utf8))
        }
        let origin = "http://127.0.0.1:\(nginx.http)"
        let serve = try Serve(config: """
        allow: ["\(origin)/public/*"]
        modules:
          http_2xx: {prober: http, timeout: 5s}
        """)
        defer { serve.stop() }
        func probe(_ path: String) throws -> (body: String, status: Int) {
            let target = (origin + path).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return try ServeCLITests.fetch("\(serve.base)/probe?target=\(target)&module=http_2xx")
        }
        // nginx itself serves the admin page to such a path: the list is the only guard.
        #expect(try ServeCLITests.fetch(origin + "/public/%2e%2e/admin/index").body.trimmingCharacters(in: .whitespacesAndNewlines) == "admin")
        let allowed = try probe("/public/index")
        #expect(allowed.status == 200 && allowed.body.contains("probe_success 1"), "\(allowed.body)")
        for path in ["/public/../admin/index", "/public/%2e%2e/admin/index", "/public/%2E%2E/admin/index", "/public/.%2e/admin/index",
                     "/public/x/../../admin/index", "/public/%252e%252e/admin/index", "/public/..%2fadmin/index", "/public/..;/admin/index",
                     "/public/..\\admin/index", "/public/./../admin/index", "/public/.."] {
            let answer = try probe(path)
            #expect(answer.status == 403 && !answer.body.contains("probe_success"), "\(path): \(answer.status) \(answer.body)")
            #expect(answer.body.contains("dot segment"), "\(path): the refusal says why: \(answer.body)")
        }
    }

    // MARK: 3. Silent connections, descriptors, concurrent probes

    /// 1,100 silent connections under a systemd service's descriptor limit (soft 1,024, hard
    /// 524,288, or this machine's hard limit when lower) made `/-/healthy` time out and serve spin; silent connections stayed open forever.
    @Test func silentConnectionsNeitherStarveNorStayOpen() throws {
        let target = try TargetProcess.get()
        // A systemd service's soft limit, under this machine's hard limit (which a sandbox may not let even root raise).
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let hard = min(UInt64(limit.rlim_max), 524_288)
        try #require(hard >= 4096, "the hard descriptor limit here is \(hard): too low for 1,100 connections beside serve's own")
        let serve = try Serve(config: ServeCLITests.probeConfig(target), wrapper: ["/usr/bin/prlimit", "--nofile=1024:\(hard)", "--"])
        defer { serve.stop() }
        let work = Harness.temporaryDirectory()
        // Opens 1,100 connections that send nothing; prints how many are open, then how many serve closed within 20 s.
        let holder = try Harness.spawn("/usr/bin/env", ["python3", "-c", """
            import socket, time, resource, select
            resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
            socks = []
            for i in range(1100):
                s = socket.socket(); s.settimeout(5)
                try:
                    s.connect(("127.0.0.1", \(serve.port))); socks.append(s)
                except Exception:
                    s.close()
            print("open", len(socks), flush=True)
            deadline = time.time() + 20
            poller = select.poll()
            for s in socks: poller.register(s, select.POLLIN | select.POLLHUP)
            closed = set()
            byfd = {s.fileno(): s for s in socks}
            while time.time() < deadline and len(closed) < len(socks):
                for fd, _ in poller.poll(500):
                    try:
                        gone = byfd[fd].recv(1) == b""
                    except Exception:
                        gone = True
                    if gone:
                        closed.add(fd); poller.unregister(fd)
            print("closed", len(closed), round(time.time() - deadline + 20, 1), flush=True)
            time.sleep(60)
            """], stdout: work + "/holder.out", stderr: work + "/holder.err")
        defer { Harness.stop(holder, signal: SIGKILL) }
        let holderLog = { (try? String(contentsOfFile: work + "/holder.out", encoding: .utf8)) ?? "" }
        #expect(Harness.waitFor(seconds: 30) { holderLog().contains("open") }, "\(holderLog())")
        #expect(holderLog().contains("open 1100"), "\(holderLog())")
        // While they are open, serve answers and does not spin.
        let cpuBefore = Self.cpuSeconds(serve.pid)
        let started = Date()
        let healthy = try Self.timed("\(serve.base)/-/healthy", maxTime: 10)
        #expect(healthy.status == 200 && healthy.seconds < 2, "/-/healthy beside 1,100 silent connections: \(healthy)")
        usleep(2_000_000)
        let busy = (Self.cpuSeconds(serve.pid) - cpuBefore) / Date().timeIntervalSince(started)
        #expect(busy < 0.5, "serve used \(busy) of a core while the silent connections were open")
        // serve closes each within its 10 s to send a request (and the holder saw it).
        #expect(Harness.waitFor(seconds: 40) { holderLog().contains("closed") }, "\(holderLog())")
        #expect(holderLog().contains("closed 1100"), "serve closed only some silent connections: \(holderLog())")
        #expect(try Self.timed("\(serve.base)/-/healthy", maxTime: 10).status == 200)
    }

    /// A request body trickled a byte every 2 s (Content-Length or chunked, before any
    /// authentication) kept its connection open for ever: the idle timer is reset by each part.
    @Test func aTrickledBodyIsCutAtTheRequestTimeout() throws {
        let target = try TargetProcess.get()
        let serve = try Serve(config: ServeCLITests.probeConfig(target))
        defer { serve.stop() }
        let result = try Harness.run("/usr/bin/env", ["python3", "-c", """
            import socket, time, threading
            heads = [b"POST /metrics HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 1000000\\r\\n\\r\\n",
                     b"POST /metrics HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n"]
            def trickle(head, out, index):
                s = socket.create_connection(("127.0.0.1", \(serve.port))); s.sendall(head); start = time.time()
                try:
                    while time.time() - start < 25:
                        s.sendall(b"1\\r\\nx\\r\\n" if b"chunked" in head else b"x"); time.sleep(2)
                    out[index] = "open"
                except OSError:
                    out[index] = round(time.time() - start, 1)
            out = [None, None]
            threads = [threading.Thread(target=trickle, args=(h, out, i)) for i, h in enumerate(heads)]
            for t in threads: t.start()
            for t in threads: t.join()
            print(out)
            """], timeout: 60)
        // Closed at the 10 s deadline (the first send after it fails).
        let closedAfter = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!closedAfter.contains("open") && !closedAfter.contains("None"), "\(closedAfter) \(result.stderr)")
    }

    /// About 250 concurrent `/probe` calls ran serve out of descriptors; now one past the limit is
    /// answered 503 at once, and the others are probed.
    @Test func probesBeyondTheLimitAre503AtOnce() throws {
        let target = try TargetProcess.get()
        let serve = try Serve(config: ServeCLITests.probeConfig(target), arguments: ["--web.max-probes", "4"])
        defer { serve.stop() }
        #expect(serve.logText().contains("4 concurrent probes"), "\(serve.logText())")
        let work = Harness.temporaryDirectory()
        // Ten probes of a target that answers after 2 s, all at once.
        let url = "\(serve.base)/probe?target=\(target.http)/delay/2000&module=http_2xx"
        let curl = try Harness.run("/bin/bash", ["-c", """
            for i in $(seq 1 10); do curl -s -o /dev/null -w '%{http_code} %{time_total}\\n' --max-time 20 '\(url)' >> \(work)/codes & done; wait
            """], timeout: 60)
        #expect(curl.status == 0)
        let lines = ((try? String(contentsOfFile: work + "/codes", encoding: .utf8)) ?? "").split(separator: "\n").map { $0.split(separator: " ") }
        let refused = lines.filter { $0.first == "503" }, probed = lines.filter { $0.first == "200" }
        #expect(probed.count == 4 && refused.count == 6, "\(lines)")
        #expect(refused.allSatisfy { Double($0.last ?? "") ?? 9 < 1 }, "a 503 waited: \(refused)")
        #expect(probed.allSatisfy { Double($0.last ?? "") ?? 0 >= 1.9 }, "\(probed)")
    }

    // MARK: 4 and 6. Blocking work, and users told apart by timing

    /// bcrypt ran on the cooperative pool: 16 clients with wrong passwords slowed `/-/healthy` (with
    /// the right token) to about a second. And only a known user paid bcrypt: 1.4 ms against 79 ms.
    @Test func passwordChecksNeitherStallNorTellUsersApart() throws {
        let target = try TargetProcess.get()
        let work = Harness.temporaryDirectory()
        let hash = try Harness.run("/usr/bin/env", ["python3", "-W", "ignore", "-c",
                                                    "import crypt; print(crypt.crypt('hunter2', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))"])
        let bcrypt = hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(bcrypt.hasPrefix("$2b$10$"), "\(bcrypt)")
        // A second user with a cheaper hash (cost 4): refused no sooner than the others.
        let cheap = try Harness.run("/usr/bin/env", ["python3", "-W", "ignore", "-c",
                                                     "import crypt; print(crypt.crypt('pw', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(cheap.hasPrefix("$2b$04$"), "\(cheap)")
        FileManager.default.createFile(atPath: work + "/token", contents: Data("token-of-sixteen-chars-or-more\n".utf8))
        FileManager.default.createFile(atPath: work + "/web.yml", contents: Data("""
        basic_auth_users: {prom: "\(bcrypt)", cheap: "\(cheap)"}
        bearer_token_file: \(work)/token
        """.utf8))
        let serve = try Serve(config: ServeCLITests.probeConfig(target, extra: "web-config: \(work)/web.yml\n"))
        defer { serve.stop() }
        let health = "\(serve.base)/-/healthy"
        // Timing: an unknown user costs what a known user's wrong password costs.
        var known: [Double] = [], unknown: [Double] = [], cheaper: [Double] = []
        for _ in 0..<7 {
            known.append(try Self.timed(health, ["-u", "prom:wrong"]).seconds)
            unknown.append(try Self.timed(health, ["-u", "nobody:wrong"]).seconds)
            cheaper.append(try Self.timed(health, ["-u", "cheap:wrong"]).seconds)
        }
        for (name, times) in [("known", known), ("cost-4", cheaper)] {
            let ratio = Self.median(unknown) / max(Self.median(times), 1e-6)
            #expect(ratio > 0.5 && ratio < 2, "unknown user \(Self.median(unknown)) s, \(name) user \(Self.median(times)) s")
        }
        #expect(try Self.timed(health, ["-u", "cheap:pw"]).status == 200)
        // 16 clients with wrong passwords, for 6 s, while the token's holder asks for /-/healthy.
        let flood = try Harness.spawn("/bin/bash", ["-c", """
            end=$((SECONDS + 6)); for i in $(seq 1 16); do (while [ $SECONDS -lt $end ]; do curl -s -o /dev/null -u prom:wrong-$i '\(health)'; done) & done; wait
            """], stdout: work + "/flood.out", stderr: work + "/flood.err")
        defer { Harness.stop(flood, signal: SIGKILL) }
        usleep(1_000_000)
        var during: [Double] = []
        for _ in 0..<8 {
            let answer = try Self.timed(health, ["-H", "Authorization: Bearer token-of-sixteen-chars-or-more"], maxTime: 20)
            #expect(answer.status == 200)
            during.append(answer.seconds)
            usleep(200_000)
        }
        #expect(Self.median(during) < 0.1, "/-/healthy beside 16 password guessers: \(during)")
    }

    /// `GET /` drew a large history on the cooperative pool: 20 at once held `/-/healthy` for
    /// seconds. The page is drawn once per recorded run, off the pool.
    @Test func historyPagesDoNotStallHealth() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        // One real run into the history, then copies of it: 20,000 runs over 100 checks.
        let first = try Serve(config: ServeCLITests.probeConfig(target, extra: """
        checks:
          - {name: api, kind: probe, urls: ["\(target.http)/"], every: 1h}
        """), output: output)
        #expect(Harness.waitFor(seconds: 30) { first.logText().contains("check api: passed") })
        first.stop()
        let copied = try Harness.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3
            db = sqlite3.connect("\(output)/history.sqlite")
            run = db.execute("select * from run").fetchone()
            check = db.execute("select * from checkResult").fetchone()
            phases = db.execute("select * from phase").fetchall()
            runColumns = len(run); checkColumns = len(check)
            for i in range(20000):
                runId = "copy-%d" % i
                db.execute("insert into run values (%s)" % ",".join("?" * runColumns), (runId,) + run[1:3] + (run[3] - i * 60_000_000,) + run[4:])
                cursor = db.execute("insert into checkResult values (%s)" % ",".join("?" * checkColumns),
                                    (None, runId, "check-%d" % (i % 100)) + check[3:5] + (check[5] - i * 60_000_000,) + check[6:])
                for phase in phases:
                    db.execute("insert into phase values (%s)" % ",".join("?" * len(phase)), (cursor.lastrowid,) + phase[1:])
            db.commit()
            print(db.execute("select count(*) from run").fetchone()[0])
            """], timeout: 120)
        #expect(copied.stdout.hasPrefix("20001"), "\(copied.stdout) \(copied.stderr)")
        let serve = try Serve(config: ServeCLITests.probeConfig(target), output: output)
        defer { serve.stop() }
        let work = Harness.temporaryDirectory()
        let pages = try Harness.spawn("/bin/bash", ["-c", """
            for i in $(seq 1 20); do curl -s -o /dev/null -w '%{http_code} %{time_total}\\n' --max-time 60 '\(serve.base)/' >> \(work)/pages & done; wait
            """], stdout: work + "/pages.out", stderr: work + "/pages.err")
        defer { Harness.stop(pages, signal: SIGKILL) }
        usleep(300_000)
        var during: [Double] = []
        for _ in 0..<8 {
            during.append(try Self.timed("\(serve.base)/-/healthy", maxTime: 30).seconds)
            usleep(100_000)
        }
        #expect(Self.median(during) < 0.1 && (during.max() ?? 0) < 1, "/-/healthy beside 20 history pages: \(during)")
        #expect(Harness.waitFor(seconds: 60) {
            ((try? String(contentsOfFile: work + "/pages", encoding: .utf8)) ?? "").split(separator: "\n").count == 20
        })
        let codes = ((try? String(contentsOfFile: work + "/pages", encoding: .utf8)) ?? "").split(separator: "\n").map { $0.prefix(3) }
        #expect(codes.allSatisfy { $0 == "200" }, "\(codes)")
    }

    // MARK: 5. A run folder that is a link

    @Test func aRunFolderThatIsALinkIsNotServed() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory(), elsewhere = Harness.temporaryDirectory()
        FileManager.default.createFile(atPath: elsewhere + "/report.json", contents: Data("{\"planted\": \"elsewhere\"}".utf8))
        try FileManager.default.createDirectory(atPath: output + "/real", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: output + "/real/report.json", contents: Data("{\"real\": 1}".utf8))
        try FileManager.default.createSymbolicLink(atPath: output + "/planted", withDestinationPath: elsewhere)
        let serve = try Serve(config: ServeCLITests.probeConfig(target), output: output)
        defer { serve.stop() }
        #expect(try ServeCLITests.fetch("\(serve.base)/runs/real/report.json").body.contains("real"))
        let planted = try ServeCLITests.fetch("\(serve.base)/runs/planted/report.json")
        #expect(planted.status == 404 && !planted.body.contains("elsewhere"), "\(planted)")
    }

    // MARK: 7 and 8. /-/reload

    /// `/-/reload` echoed the lines of a file the config path links to, and was open to any client.
    @Test func reloadIsOptInAndNeverShowsTheFile() throws {
        let target = try TargetProcess.get()
        let closed = try Serve(config: ServeCLITests.probeConfig(target))
        let refused = try ServeCLITests.fetch("\(closed.base)/-/reload", method: "POST")
        closed.stop()
        #expect(refused.status == 403 && refused.body.contains("--web.enable-lifecycle"), "\(refused)")

        let serve = try Serve(config: ServeCLITests.probeConfig(target), arguments: ["--web.enable-lifecycle"])
        defer { serve.stop() }
        let secrets = Harness.temporaryDirectory() + "/secrets"
        for content in ["root:x:0:0:sekrit-line-one:/root:/bin/bash\ndaemon:x:1:1:sekrit-line-two:/usr/sbin:/usr/sbin/nologin\n",
                        "db_password: 'sekrit-value'\napi: {token: \"sekrit-token\", port: sekrit-port}\n",
                        "modules:\n  m: {prober: sekrit-prober}\nallow: ['sekrit-allow']\n"] {
            FileManager.default.createFile(atPath: secrets, contents: Data(content.utf8))
            try? FileManager.default.removeItem(atPath: serve.configPath)
            try FileManager.default.createSymbolicLink(atPath: serve.configPath, withDestinationPath: secrets)
            let answer = try ServeCLITests.fetch("\(serve.base)/-/reload", method: "POST")
            #expect(answer.status == 500 && answer.body.contains("sonde.yaml"), "\(answer)")
            #expect(!answer.body.contains("sekrit"), "the answer shows the file's content: \(answer.body)")
        }
    }

    /// An empty config (a file truncated mid-save) reloaded with 200 and dropped every check.
    @Test func anEmptyConfigIsRefusedOnReload() throws {
        let target = try TargetProcess.get()
        let checks = "checks:\n  - {name: api, kind: probe, urls: [\"\(target.http)/\"], every: 1s}\n"
        let serve = try Serve(config: ServeCLITests.probeConfig(target, extra: checks), arguments: ["--web.enable-lifecycle"])
        defer { serve.stop() }
        #expect(Harness.waitFor(seconds: 20) { serve.logText().contains("check api: passed") })
        for empty in ["", "\n# nothing yet\n", "{}\n", "listen: 127.0.0.1:9166\n", "vantage: x\n"] {
            FileManager.default.createFile(atPath: serve.configPath, contents: Data(empty.utf8))
            let answer = try ServeCLITests.fetch("\(serve.base)/-/reload", method: "POST")
            #expect(answer.status == 500 && (answer.body.contains("empty") || answer.body.contains("no checks, modules or allow")),
                    "\(empty.debugDescription): \(answer)")
        }
        kill(serve.pid, SIGHUP)
        usleep(500_000)
        let before = ServeCLITests.samples((try? ServeCLITests.fetch("\(serve.base)/metrics").body) ?? "")
        #expect(before["sonde_serve_config_last_reload_successful"] == 0)
        let runs = before["sonde_serve_runs_total{check=\"api\",result=\"passed\"}"] ?? 0
        #expect(Harness.waitFor(seconds: 10) {
            (ServeCLITests.samples((try? ServeCLITests.fetch("\(serve.base)/metrics").body) ?? "")["sonde_serve_runs_total{check=\"api\",result=\"passed\"}"] ?? 0) > runs
        }, "the running config's check kept running")
    }
}
