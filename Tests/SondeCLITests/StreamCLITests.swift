import Foundation
import Testing

/// `sonde stream` (Server-Sent Events) against independent peers: an aiohttp-sse server
/// (Fixtures/sse_server.py) that stamps each event with its send time, drops the connection
/// after N events, resumes after Last-Event-ID (or skips ids) and answers in hostile ways; and
/// nginx in front of it, with gzip and proxy_buffering on (the events held back) or off.
@Suite(.serialized) struct StreamCLITests {
    /// The aiohttp-sse peer on a free loopback port; waits (at most 10 s) for its "ready" line.
    final class Peer {
        let pid: pid_t
        let port: Int
        init() throws {
            port = Harness.freePort()
            let log = NSTemporaryDirectory() + "sonde-sse-\(UUID().uuidString).log"
            pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/sse_server.py", "\(port)"],
                                    stdout: log, stderr: log)
            guard Harness.waitFor(seconds: 10, { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("ready") == true }) else {
                Harness.stop(pid, signal: SIGKILL)
                throw Harness.SpawnError(message: "sse_server.py did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
        }
        deinit { Harness.stop(pid, signal: SIGKILL) }
    }

    /// nginx in front of `upstream`: gzip on for text/event-stream, one server with proxy_buffering
    /// on (X-Accel-Buffering ignored, so aiohttp-sse's "no" does not turn it off), one with it off,
    /// and one over TLS (h2 and http/1.1 through ALPN, a self-signed certificate) with buffering off.
    final class Proxy {
        let dir = Harness.temporaryDirectory()
        let buffered = Harness.freePort(), unbuffered = Harness.freePort(), tls = Harness.freePort()
        var certificate: String { dir + "/cert.pem" }
        init(upstream: Int) throws {
            try FileManager.default.createDirectory(atPath: dir + "/tmp", withIntermediateDirectories: true)
            let made = try Harness.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                            "-days", "2", "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem", "-subj", "/CN=localhost",
                                                            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
            guard made.status == 0 else { throw Harness.SpawnError(message: "openssl: \(made.stderr)") }
            let config = """
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log;
            events { worker_connections 64; }
            http {
              access_log off;
              client_body_temp_path \(dir)/tmp/body; proxy_temp_path \(dir)/tmp/proxy; fastcgi_temp_path \(dir)/tmp/fcgi;
              uwsgi_temp_path \(dir)/tmp/uwsgi; scgi_temp_path \(dir)/tmp/scgi;
              proxy_http_version 1.1; proxy_set_header Connection "";
              proxy_ignore_headers X-Accel-Buffering;
              gzip on; gzip_types text/event-stream; gzip_min_length 0;
              server { listen 127.0.0.1:\(buffered); location / { proxy_pass http://127.0.0.1:\(upstream); proxy_buffering on; } }
              server { listen 127.0.0.1:\(unbuffered); location / { proxy_pass http://127.0.0.1:\(upstream); proxy_buffering off; } }
              server { listen 127.0.0.1:\(tls) ssl http2; ssl_certificate \(dir)/cert.pem; ssl_certificate_key \(dir)/key.pem; gzip off;
                       location / { proxy_pass http://127.0.0.1:\(upstream); proxy_buffering off; } }
            }
            """
            try config.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
            let started = try Harness.run("/usr/sbin/nginx", ["-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/error.log"])
            guard started.status == 0, Harness.waitFor(seconds: 5, { FileManager.default.fileExists(atPath: dir + "/nginx.pid") }) else {
                throw Harness.SpawnError(message: "nginx did not start: \(started.stderr) \((try? String(contentsOfFile: dir + "/error.log", encoding: .utf8)) ?? "")")
            }
        }
        deinit {
            if let text = try? String(contentsOfFile: dir + "/nginx.pid", encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                Harness.stop(pid, signal: SIGQUIT)
            }
        }
    }

    /// Runs `sonde stream` and returns its result and report.json's first `streams` item (the report validated against the schema).
    private func stream(_ arguments: [String]) throws -> (result: Harness.Result, report: [String: Any]?, folder: String?) {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["stream"] + arguments + ["--output-dir", output], timeout: 60)
        let folder = try Harness.entries(of: output).first.map { output + "/" + $0 }
        if let folder { #expect(try Harness.validate([folder + "/report.json"]).status == 0) }
        let document = folder.flatMap { try? String(contentsOfFile: $0 + "/report.json", encoding: .utf8) }.flatMap { try? Harness.json($0) }
        let report = (document?["streams"] as? [[String: Any]])?.first
        return (result, report, folder)
    }

    private func total(_ report: [String: Any]?) throws -> [String: Any] { try #require(report?["total"] as? [String: Any]) }

    /// gzip holds compressed events in its buffer until it fills when nginx buffers the upstream
    /// (no flush reaches the gzip filter); with proxy_buffering off each read is flushed through.
    /// The delivery delay against the server's stamp, and the burst index, tell them apart.
    @Test func aBufferingProxyShowsAsDelayAndBurstsAndAnUnbufferedOneDoesNot() throws {
        let peer = try Peer()
        let proxy = try Proxy(upstream: peer.port)
        let path = "/events?interval=0.05&pad=2048"
        let held = try stream(["http://127.0.0.1:\(proxy.buffered)\(path)", "--client", "urlsession", "--duration", "4s", "--stamp-field", "sent"])
        #expect(held.result.status == 0, "\(held.result.stdout)\(held.result.stderr)")
        let heldTotal = try total(held.report)
        let heldDelay = try #require((heldTotal["deliveryDelayMs"] as? [String: Any])?["p50"] as? Double)
        #expect(heldDelay > 200, "events held by gzip behind a buffering proxy: \(heldTotal)")
        #expect((heldTotal["burstIndex"] as? Double ?? 0) > 0.5 && (heldTotal["bursts"] as? Int ?? 0) >= 1, "\(heldTotal)")
        #expect(held.result.stdout.contains("burst of"), "\(held.result.stdout)")

        let flowing = try stream(["http://127.0.0.1:\(proxy.unbuffered)\(path)", "--client", "urlsession", "--duration", "4s", "--stamp-field", "sent"])
        #expect(flowing.result.status == 0, "\(flowing.result.stdout)\(flowing.result.stderr)")
        let flowingTotal = try total(flowing.report)
        let flowingDelay = try #require((flowingTotal["deliveryDelayMs"] as? [String: Any])?["p95"] as? Double)
        #expect(flowingDelay < 100, "\(flowingTotal)")
        #expect((flowingTotal["burstIndex"] as? Double ?? 1) < 0.1 && flowingTotal["bursts"] as? Int == 0, "\(flowingTotal)")
        #expect((flowingTotal["events"] as? Int ?? 0) >= 50, "\(flowingTotal)")
    }

    /// The server ends the stream after 5 events and asks for retry: 200; sonde reconnects after
    /// 200 ms with Last-Event-ID, the server resumes after it: no id lost. A server that skips 3
    /// ids on each resume shows them lost, across the reconnects.
    @Test func reconnectsWithLastEventIDAndCountsLostIDs() throws {
        let peer = try Peer()
        let resumed = try stream(["http://127.0.0.1:\(peer.port)/events?interval=0.05&drop=5&retry=200", "--duration", "3s", "--stamp-field", "sent"])
        #expect(resumed.result.status == 0, "\(resumed.result.stdout)\(resumed.result.stderr)")
        let totals = try total(resumed.report)
        #expect((totals["reconnects"] as? Int ?? 0) >= 2 && totals["lostIDs"] as? Int == 0 && totals["repeatedIDs"] as? Int == 0, "\(totals)")
        let connections = try #require(((resumed.report?["streams"] as? [[String: Any]])?.first?["connections"] as? [[String: Any]]))
        #expect(connections.count >= 3)
        #expect(connections[1]["lastEventIDSent"] as? String == "5" && connections[1]["delayMs"] as? Int == 200, "\(connections[1])")
        #expect(connections[0]["endCause"] as? String == "serverClosed")
        #expect(resumed.result.stdout.contains("reconnecting in 200 ms with Last-Event-ID 5"), "\(resumed.result.stdout)")
        // The run's end finds the last connection open (plannedEnd 1) or waiting out its retry
        // delay (none): which one depends on where 3 s falls in the 5-events-and-200-ms cycle.
        let ends = resumed.result.stdout.split(separator: "\n").first { $0.contains("connection ends: ") } ?? ""
        #expect(ends.contains("serverClosed ") && !ends.contains("plannedEnd 2"), "\(resumed.result.stdout)")
        // The journal holds the figures: `sonde report` rebuilds the same streams section.
        let folder = try #require(resumed.folder)
        let rebuilt = try Harness.sonde(["report", folder])
        #expect(rebuilt.status == 0, "\(rebuilt.stdout)\(rebuilt.stderr)")
        let again = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        #expect(((again["streams"] as? [[String: Any]])?.first?["total"] as? [String: Any])?["events"] as? Int == totals["events"] as? Int)

        let skipping = try stream(["http://127.0.0.1:\(peer.port)/events?interval=0.05&drop=5&retry=200&skip=3", "--duration", "3s"])
        let skipped = try #require(((skipping.report?["streams"] as? [[String: Any]])?.first?["ids"] as? [String: Any]))
        let reconnects = try total(skipping.report)["reconnects"] as? Int ?? 0
        #expect(reconnects >= 2 && skipped["lost"] as? Int == 3 * reconnects && skipped["lostAcrossReconnects"] as? Int == 3 * reconnects, "\(skipped)")
        #expect((skipped["lostRanges"] as? [String])?.first == "6-8", "\(skipped)")
        #expect(skipping.result.stdout.contains("ids 6-8 lost"), "\(skipping.result.stdout)")
    }

    /// Three streams over h2 (TLS, ALPN) share one connection; over HTTP/1.1 each takes its own.
    /// (h2c with prior knowledge is not used here: libcurl 7.88 fails concurrent transfers
    /// waiting for one such connection with "Error in the HTTP2 framing layer", curl's own -Z too.)
    @Test func streamsShareAnHTTP2ConnectionAndNotAnHTTP1One() throws {
        let peer = try Peer()
        let proxy = try Proxy(upstream: peer.port)
        let h2 = try stream(["https://127.0.0.1:\(proxy.tls)/events?interval=0.1", "--http2", "--cacert", proxy.certificate,
                             "--streams", "3", "--duration", "2s"])
        #expect(h2.result.status == 0, "\(h2.result.stdout)\(h2.result.stderr)")
        let h2Total = try total(h2.report)
        #expect(h2Total["connections"] as? Int == 1 && h2Total["maxStreamsPerConnection"] as? Int == 3, "\(h2Total)")
        #expect(h2.result.stdout.contains("over h2"), "\(h2.result.stdout)")
        let h1 = try stream(["https://127.0.0.1:\(proxy.tls)/events?interval=0.1", "--http1.1", "--cacert", proxy.certificate,
                             "--streams", "3", "--duration", "2s"])
        let h1Total = try total(h1.report)
        #expect(h1Total["connections"] as? Int == 3 && h1Total["maxStreamsPerConnection"] as? Int == 1, "\(h1Total)")
        // In cleartext (HTTP/1.1 by default) every stream is up at once, each on its own connection.
        let plain = try stream(["http://127.0.0.1:\(peer.port)/events?interval=0.05", "--streams", "3", "--duration", "2s"])
        let plainTotal = try total(plain.report)
        #expect(plainTotal["connections"] as? Int == 3 && (plainTotal["events"] as? Int ?? 0) >= 3 * 30, "\(plainTotal)")
        let firstEvents = (plain.report?["streams"] as? [[String: Any]] ?? []).compactMap { $0["firstEventMs"] as? Double }
        #expect(firstEvents.count == 3 && firstEvents.allSatisfy { $0 < 1000 }, "\(firstEvents)")
    }

    /// What a hostile or wrong server sends ends with a clear error and bounded memory.
    @Test(arguments: [
        ("/endless", "a line went past 65536 bytes without a line end"),
        ("/huge", "an event's data went past 65536 bytes"),
        ("/html", "not 200 text/event-stream"),
        ("/notfound", "the response was 404"),
    ])
    func hostileAnswersFailClearly(path: String, message: String) throws {
        let peer = try Peer()
        let run = try stream(["http://127.0.0.1:\(peer.port)\(path)", "--duration", "10s", "--max-event-size", "64KiB"])
        #expect(run.result.status == 1, "\(run.result.stdout)\(run.result.stderr)")
        #expect(run.result.stdout.contains(message), "\(run.result.stdout)")
        let totals = try total(run.report)
        #expect(totals["passed"] as? Bool == false && (totals["failure"] as? String)?.contains(message) == true, "\(totals)")
        #expect(totals["reconnects"] as? Int == 0, "EventSource does not reconnect after a failed connection")
    }

    @Test func anAbsurdRetryIsNotTaken() throws {
        let peer = try Peer()
        let run = try stream(["http://127.0.0.1:\(peer.port)/bigretry", "--duration", "2s", "--retry", "300ms"])
        #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
        let first = try #require((run.report?["streams"] as? [[String: Any]])?.first)
        #expect((first["retryRejected"] as? [String])?.first == "99999999999999" && first["retryMs"] == nil, "\(first)")
        let connections = try #require(first["connections"] as? [[String: Any]])
        #expect(connections.count >= 2 && connections[1]["delayMs"] as? Int == 300, "the reconnect waited --retry: \(connections)")
    }

    /// `--events` ends each stream after that many events (the run ends then, before its
    /// duration); heartbeats (aiohttp-sse's ": ping" comments) are counted.
    @Test func eventsEndEachStreamAndHeartbeatsAreCounted() throws {
        let peer = try Peer()
        let run = try stream(["http://127.0.0.1:\(peer.port)/events?interval=0.1&ping=0.3", "--streams", "2", "--events", "8", "--duration", "30s"])
        #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
        let totals = try total(run.report)
        #expect(totals["events"] as? Int == 16 && (totals["comments"] as? Int ?? 0) >= 2, "\(totals)")
        let streams = try #require(run.report?["streams"] as? [[String: Any]])
        #expect(streams.count == 2 && streams.allSatisfy { ($0["connections"] as? [[String: Any]])?.last?["endCause"] as? String == "plannedEnd" })
        #expect(run.result.stdout.contains("16 events"), "\(run.result.stdout)")
    }

    /// `kind: sse` is a registered kind: `sonde stream --print-suite` prints the check's suite
    /// entry, and `sonde run` runs that suite through the same driver, the report naming the kind
    /// and the streams section naming the check.
    @Test func aPrintedSSECheckRunsInASuite() throws {
        let peer = try Peer()
        let url = "http://127.0.0.1:\(peer.port)/events?interval=0.05"
        let printed = try Harness.sonde(["stream", url, "--events", "5", "--duration", "20s", "--streams", "2", "--print-suite"])
        #expect(printed.status == 0, "\(printed.stdout)\(printed.stderr)")
        #expect(printed.stdout.contains("kind: sse") && printed.stdout.contains("events: 5"), "\(printed.stdout)")
        let dir = Harness.temporaryDirectory()
        try ("checks:\n" + printed.stdout).write(toFile: dir + "/suite.yaml", atomically: true, encoding: .utf8)
        let output = dir + "/out"
        let run = try Harness.sonde(["run", dir + "/suite.yaml", "--output-dir", output], timeout: 60)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix("history.sqlite") }))
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let document = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let check = try #require((document["checks"] as? [[String: Any]])?.first)
        #expect(check["kind"] as? String == "sse" && check["status"] as? String == "passed", "\(check)")
        let item = try #require((document["streams"] as? [[String: Any]])?.first)
        #expect(item["check"] as? String == check["name"] as? String)
        #expect((item["total"] as? [String: Any])?["events"] as? Int == 10, "\(item)")
    }

    /// `sse.*` thresholds judge the streams (the kind's own metrics): a gap bound under the
    /// server's 50 ms cadence fails (99), bounds the streams meet pass, each with its observed value.
    @Test func sseThresholdsJudgeTheStreams() throws {
        let peer = try Peer()
        let url = "http://127.0.0.1:\(peer.port)/events?interval=0.05"
        let failing = try stream([url, "--events", "6", "--duration", "20s", "--threshold", "sse.gap.p95<1ms"])
        #expect(failing.result.status == 99, "\(failing.result.stdout)\(failing.result.stderr)")
        let passing = try stream([url, "--events", "6", "--duration", "20s", "--threshold", "sse.gap.p50<5s", "--threshold", "sse.events.count==6",
                                  "--threshold", "sse.firstEvent.max<5s", "--threshold", "sse.reconnects.count==0"])
        #expect(passing.result.status == 0, "\(passing.result.stdout)\(passing.result.stderr)")
        let folder = try #require(passing.folder)
        let document = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let thresholds = try #require(document["thresholds"] as? [[String: Any]])
        #expect(thresholds.count == 4 && thresholds.allSatisfy { $0["passed"] as? Bool == true }, "\(thresholds)")
        let gap = try #require(thresholds.first?["observed"] as? Double)
        #expect(gap > 20 && gap < 1000, "the gap's p50 against a 50 ms cadence: \(gap)")
        // `sonde report` re-judges from the journal: the values are in the streams item.
        let rejudgedOutput = Harness.temporaryDirectory()
        let rejudged = try Harness.sonde(["report", folder, "--threshold", "sse.events.count>6", "--output-dir", rejudgedOutput])
        #expect(rejudged.status == 99, "\(rejudged.stdout)\(rejudged.stderr)")
        // The new run's report.html keeps the streams section (the kinds' renderers, as the first run's).
        let newFolder = try #require(try Harness.entries(of: rejudgedOutput).first.map { rejudgedOutput + "/" + $0 })
        let html = try String(contentsOfFile: newFolder + "/report.html", encoding: .utf8)
        #expect(html.contains("<section id=\"streams\">"), "\(html.prefix(2000))")
        // Another command's run never measures sse.*: refused before the run (64), not judged "no data" (99).
        let probe = try Harness.sonde(["probe", "http://127.0.0.1:\(peer.port)/", "--threshold", "sse.gap.p95<1s", "--output-dir", Harness.temporaryDirectory()])
        #expect(probe.status == 64 && probe.stderr.contains("does not measure") && probe.stderr.contains("probe metrics"), "\(probe.stdout)\(probe.stderr)")
    }

    /// `--otlp`: the kind's declared metrics (`sse.*`) arrive as gauges `sonde.sse.*` at the stream's
    /// url.full, each equal to report.json's value (durations in s), with no mapping of the kind's own
    /// (otlp_check.py compares every value).
    @Test func theDeclaredMetricsArriveOverOTLP() throws {
        let peer = try Peer()
        let receiver = try OTLPExportCLITests.Receiver()
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(peer.port)/events?interval=0.05"
        let run = try stream([url, "--events", "6", "--duration", "20s", "--otlp", receiver.endpoint])
        #expect(run.result.status == 0 && !run.result.stderr.contains("OTLP"), "\(run.result.stdout)\(run.result.stderr)")
        let folder = try #require(run.folder)
        let metrics = try #require(run.report?["metrics"] as? [String: Any])
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(metrics.count >= 10 && summary["declaredValues"] as? Int == metrics.count, "\(summary) \(metrics)")
        let names = summary["metricNames"] as? [String] ?? []
        #expect(names.contains("sonde.sse.gap.p95") && names.contains("sonde.sse.events.count"), "\(names)")
    }

    /// The streams section beside report.json: a table per check in report.html (the URL's `&`
    /// escaped, a row per stream), `sonde_sse_*` gauges in the Prometheus file, labelled by check
    /// and url, which promtool accepts, and a junit.xml case per stream, failed when it failed.
    @Test func theStreamsShowInTheHTMLReportPrometheusAndJUnit() throws {
        let peer = try Peer()
        let prom = Harness.temporaryDirectory() + "/sonde.prom"
        let url = "http://127.0.0.1:\(peer.port)/events?interval=0.05&ping=0.2"
        let run = try stream([url, "--events", "6", "--streams", "2", "--duration", "20s", "--prom", prom])
        #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
        let folder = try #require(run.folder)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        let section = try #require(html.range(of: "<section id=\"streams\">").map { String(html[$0.lowerBound...]) }, "no streams section")
        // No empty probe summary ("0 tasks, 0 transactions") above a stream run's own section.
        #expect(!html.contains("0 tasks, 0 transactions"), "\(html.prefix(3000))")
        #expect(section.contains("interval=0.05&amp;ping=0.2") && !section.contains("interval=0.05&ping"), "\(section.prefix(600))")
        let rows = section.components(separatedBy: "</section>")[0].components(separatedBy: "<tr><td>").count - 1
        #expect(rows == 2, "a row per stream: \(section.prefix(1200))")
        let metrics = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(metrics.contains("sonde_sse_events{check=\"\",url=\"\(url)\"} 12"), "\(metrics)")
        #expect(metrics.contains("sonde_sse_success{check=\"\",url=\"\(url)\"} 1") && metrics.contains("sonde_sse_gap_p95_seconds{"), "\(metrics)")
        let lint = try Harness.run("/bin/sh", ["-c", "/usr/bin/promtool check metrics < \"$0\"", prom])
        #expect(lint.status == 0 && (lint.stdout + lint.stderr).isEmpty, "promtool: \(lint.stdout)\(lint.stderr)")
        // junit.xml: a passing case per stream; a stream answered with text/html fails its case.
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        let cases = junit.components(separatedBy: "<testcase classname=\"sonde.sse\"").dropFirst()
        #expect(cases.count == 2 && cases.allSatisfy { !$0.prefix(while: { $0 != "\n" }).contains("<failure") }, "\(junit)")
        #expect(junit.contains("interval=0.05&amp;ping=0.2 stream 1"), "\(junit)")
        let bad = try stream(["http://127.0.0.1:\(peer.port)/html", "--duration", "5s"])
        #expect(bad.result.status == 1, "\(bad.result.stdout)\(bad.result.stderr)")
        let badJUnit = try String(contentsOfFile: try #require(bad.folder) + "/junit.xml", encoding: .utf8)
        #expect(badJUnit.contains("<testcase classname=\"sonde.sse\" name=\"http://127.0.0.1:\(peer.port)/html stream 1\" time=\"0\"><failure"),
                "\(badJUnit)")
        #expect(badJUnit.contains("failures=\"1\""), "\(badJUnit)")
    }

    /// `kind: sse` in `sonde serve`'s config: the check runs on its schedule, its `sse.*` threshold,
    /// its success and the kind's own `sonde_sse_*` series reach /metrics.
    @Test func serveRunsAnSSECheck() throws {
        let peer = try Peer()
        let config = """
        checks:
          - {name: ticker, kind: sse, url: "http://127.0.0.1:\(peer.port)/events?interval=0.05", events: 5, every: 2s, thresholds: ["sse.events.count==5"]}
        """
        let serve = try ServeCLITests.Serve(config: config)
        defer { serve.stop() }
        #expect(Harness.waitFor(seconds: 60) { serve.logText().contains("check ticker: passed") }, "\(serve.logText())\(serve.errorText())")
        let samples = ServeCLITests.samples(try ServeCLITests.fetch("\(serve.base)/metrics").body)
        #expect(samples[#"sonde_threshold_passed{check="ticker",expression="sse.events.count==5"}"#] == 1, "\(samples)")
        #expect(samples[#"sonde_check_success{check="ticker",kind="sse"}"#] == 1, "\(samples)")
        // The kind's own series, as in the Prometheus file (no run id in their labels).
        #expect(samples.contains { $0.key.hasPrefix(#"sonde_sse_events{check="ticker",url="#) && $0.value == 5 }, "\(samples)")
        #expect(samples.keys.contains { $0.hasPrefix(#"sonde_sse_gap_p95_seconds{check="ticker""#) }, "\(samples)")
    }

    /// Ctrl-C ends every stream: exit 130, the report holds the streams so far.
    @Test func anInterruptedRunKeepsItsStreams() throws {
        let peer = try Peer()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["stream", "http://127.0.0.1:\(peer.port)/events?interval=0.05", "--duration", "60s", "--output-dir", output],
                                       timeout: 30, interruptAfter: 2)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first))
        let document = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let item = try #require((document["streams"] as? [[String: Any]])?.first)
        let connection = try #require(((item["streams"] as? [[String: Any]])?.first?["connections"] as? [[String: Any]])?.first)
        #expect(connection["endCause"] as? String == "interrupted" && (connection["events"] as? Int ?? 0) >= 10, "\(connection)")
        #expect((document["run"] as? [String: Any])?["status"] as? String == "interrupted")
    }

    /// Off a terminal (issue 41, docs/ci.md) every line reaches a pipe as it happens: the first at
    /// once, each reconnect when it happens, and a status line every 5 s while the streams run.
    @Test func aStreamThroughAPipeShowsItsLinesAsTheyHappen() throws {
        let peer = try Peer()
        let run = try StreamingOutputCLITests.piped(["stream", "http://127.0.0.1:\(peer.port)/events?interval=0.1&drop=30&retry=200",
                                                     "--duration", "12s", "--output-dir", Harness.temporaryDirectory()], timeout: 60)
        #expect(run.status == 0, "\(run.shown)")
        let stdout = run.stdout
        let first = try #require(stdout.first, "\(run.shown)")
        #expect(first.text.hasPrefix("stream http://") && first.at < 3, "\(run.shown)")
        let reconnects = stdout.filter { $0.text.contains("reconnecting in 200 ms with Last-Event-ID") }
        #expect(reconnects.count >= 3, "\(run.shown)")
        if reconnects.count >= 3 { #expect(reconnects[2].at - reconnects[0].at >= 4, "reconnect lines as they happen:\n\(run.shown)") }
        let status = stdout.filter { $0.text.hasPrefix("[") && $0.text.contains("/12 s] stream: up ") }
        #expect(status.count >= 2 && status.allSatisfy { $0.at < run.seconds - 1 }, "\(run.shown)")
        var previous = 0.0
        for line in stdout {
            #expect(line.at - previous <= 10, "\(line.at - previous) s without a line:\n\(run.shown)")
            previous = line.at
        }
    }

    /// Bad options are usage errors (64) that name the option, before any folder or connection.
    @Test(arguments: [
        (["http://127.0.0.1:9/e", "--streams", "0"], "--streams must be between 1 and 256"),
        (["http://127.0.0.1:9/e", "--max-event-size", "10"], "--max-event-size must be between 1KiB and 64MiB"),
        (["http://127.0.0.1:9/e", "--retry", "11m"], "--retry"),
        (["ws://127.0.0.1:9/e"], "ws"),
        (["http://127.0.0.1:9/e", "--http3"], "not measured yet"),
        (["http://127.0.0.1:9/e", "--threshold", "wait.p95<1s"], "judged by the sse.* metrics"),
        (["http://127.0.0.1:9/e", "--threshold", "sse.gapp.p95<1s"], "unknown metric 'sse.gapp.p95'"),
        (["http://127.0.0.1:9/e", "--stamp-field", ""], "--stamp-field"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["stream"] + arguments + ["--output-dir", output])
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try Harness.entries(of: output).isEmpty)
    }

    /// A secret header reaches the server and nothing sonde writes.
    @Test func secretHeadersAreRedacted() throws {
        let peer = try Peer()
        let secret = "s3cret-\(UUID().uuidString)"
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["stream", "http://127.0.0.1:\(peer.port)/events?interval=0.1", "-H", "Authorization: Bearer \(secret)",
                                        "--events", "3", "--output-dir", output])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first))
        try Harness.expectNowhere(secret, result: result, folder: folder)
        let document = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let headers = ((document["streams"] as? [[String: Any]])?.first?["config"] as? [String: Any])?["headers"] as? [String]
        #expect(headers?.contains { $0.hasPrefix("Authorization: ") } == true, "\(String(describing: headers))")
    }
}
