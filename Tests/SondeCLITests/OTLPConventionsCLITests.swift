import Foundation
import Testing

/// What reaches an OTLP collector, checked against the OpenTelemetry semantic conventions and SDK
/// specification (issue 39 #12, #13, #16) with the `opentelemetry-proto` receiver
/// (`Fixtures/otlp_receiver.py`) and `Fixtures/otlp_conventions.py`:
/// redirects are not followed, credentials appear nowhere, unknown methods are `_OTHER`, the size
/// attributes are the conventions', and the SDK's variables are honoured.
@Suite(.serialized) struct OTLPConventionsCLITests {
    typealias Receiver = OTLPExportCLITests.Receiver

    /// A collector answering 303 to another host: nothing reaches the other host (not the
    /// `OTEL_EXPORTER_OTLP_HEADERS` API key, not the body), each signal's export fails once with
    /// the Location in its message, and the run's status stands.
    @Test func aRedirectIsAFailedExportAndNothingGoesWhereItPoints() throws {
        let target = try TargetProcess.get()
        let elsewhere = try Receiver()
        defer { elsewhere.stop() }
        let redirecting = try Receiver(redirectTo: elsewhere.endpoint)
        defer { redirecting.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.run("/usr/bin/env", ["OTEL_EXPORTER_OTLP_HEADERS=x-api-key=k3y-0f-the-c0llector",
                                                      Harness.sonde, "probe", target.http + "/bytes/10", "--otlp", redirecting.endpoint,
                                                      "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "the OTLP export failed").count == 2, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 303") && result.stderr.contains("to \(elsewhere.endpoint)/v1/metrics")
                && result.stderr.contains("to \(elsewhere.endpoint)/v1/traces"), "\(result.stderr)")
        #expect(elsewhere.requests.isEmpty, "the redirect was followed: \(elsewhere.requests)")
        // One POST per signal, each carrying the key to the collector it was meant for; no retries of a 3xx.
        let asked = redirecting.requests
        #expect(asked.count == 2 && asked.allSatisfy { $0["method"] as? String == "POST" }, "\(asked)")
        #expect(asked.allSatisfy { ($0["headers"] as? [String: String])?["x-api-key"] == "k3y-0f-the-c0llector" }, "\(asked)")
        #expect(!result.stderr.contains("k3y-0f-the-c0llector"))
    }

    /// A password in the endpoint is redacted in the CLI's warning; `url.full` carries neither the
    /// user name nor the password of a probed URL (`https://REDACTED:REDACTED@host/`).
    @Test func credentialsAreInNoMessageAndNotInURLFull() throws {
        let target = try TargetProcess.get()
        let down = "http://sonde-user:pa55-w0rd-otlp@127.0.0.1:\(Harness.freePort())"
        let output = Harness.temporaryDirectory()
        let failed = try Harness.sonde(["probe", target.http + "/bytes/10", "--otlp", down, "--output-dir", output], timeout: 60)
        #expect(failed.status == 0, "\(failed.stderr)")
        #expect(failed.stderr.contains("the OTLP export failed"), "\(failed.stderr)")
        #expect(!failed.stderr.contains("pa55-w0rd-otlp") && failed.stderr.contains("sonde-user:REDACTED@"), "\(failed.stderr)")

        let receiver = try Receiver()
        defer { receiver.stop() }
        let withUser = target.http.replacingOccurrences(of: "http://", with: "http://probe-user:probe-pa55@") + "/bytes/10"
        let probed = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", withUser, "--otlp", receiver.endpoint, "--output-dir", probed], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let facts = try receiver.conventions(report: try OTLPExportCLITests.runFolder(probed) + "/report.json")
        let expected = target.http.replacingOccurrences(of: "http://", with: "http://REDACTED:REDACTED@") + "/bytes/10"
        let spans = facts["clientSpans"] as? [[String: Any]] ?? []
        #expect(spans.count == 1 && spans.allSatisfy { $0["urlFull"] as? String == expected }, "\(spans)")
        #expect(facts["taskUrls"] as? [String] == [expected], "\(facts["taskUrls"] ?? "")")
    }

    /// `-X FOO` (a method the conventions do not know): `http.request.method` `_OTHER` on the span
    /// and the duration histogram, `http.request.method_original` `FOO`, span name `HTTP`; GET keeps
    /// its name. The sizes are the conventions' (`http.request.size`, `http.request.body.size`,
    /// `http.response.size`, `http.response.body.size`) with report.json's values, and nothing under
    /// `http.request.header.*` is not a header.
    @Test func unknownMethodsAreOtherAndSizesAreTheConventions() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let foo = try Harness.sonde(["probe", target.http + "/bytes/10", "-X", "FOO", "--otlp", receiver.endpoint, "--output-dir", output],
                                    timeout: 60)
        #expect(!foo.stderr.contains("OTLP"), "\(foo.stderr)")
        let get = try Harness.sonde(["probe", target.http + "/bytes/300", "--otlp", receiver.endpoint, "--output-dir", output], timeout: 60)
        #expect(get.status == 0 && !get.stderr.contains("OTLP"), "\(get.stderr)")
        let folders = try Harness.entries(of: output).sorted()
        var spans: [[String: Any]] = []
        var methods: [String] = []
        var misuse: [String] = []
        for folder in folders {
            let facts = try receiver.conventions(report: output + "/" + folder + "/report.json")
            spans += (facts["clientSpans"] as? [[String: Any]] ?? []).filter { $0["reportMethod"] != nil }
            methods += facts["durationMethods"] as? [String] ?? []
            misuse += facts["headerNamespaceMisuse"] as? [String] ?? []
        }
        #expect(misuse.isEmpty, "not headers under http.request.header.*: \(misuse)")
        #expect(Set(methods) == ["_OTHER", "GET"], "\(methods)")
        let other = try #require(spans.first { $0["reportMethod"] as? String == "FOO" }, "\(spans)")
        #expect(other["name"] as? String == "HTTP" && other["method"] as? String == "_OTHER" && other["methodOriginal"] as? String == "FOO", "\(other)")
        let plain = try #require(spans.first { $0["reportMethod"] as? String == "GET" }, "\(spans)")
        #expect(plain["name"] as? String == "GET" && plain["method"] as? String == "GET" && (plain["methodOriginal"] as? String) == nil, "\(plain)")
        for span in [other, plain] {
            for (attribute, field) in [("requestSize", "reportRequestSize"), ("requestBodySize", "reportRequestBodySize"),
                                       ("responseSize", "reportResponseSize"), ("responseBodySize", "reportResponseBodySize")] {
                #expect(span[attribute] as? Int != nil && span[attribute] as? Int == span[field] as? Int, "\(attribute): \(span)")
            }
        }
        #expect((plain["responseBodySize"] as? Int) == 300 && (plain["responseSize"] as? Int ?? 0) > 300, "\(plain)")
    }

    /// The SDK's variables: `OTEL_SERVICE_NAME` wins over `service.name` in `OTEL_RESOURCE_ATTRIBUTES`,
    /// whose other attributes (percent-decoded) join every resource; `service.instance.id` is one
    /// UUID for the run's metrics and traces; `OTEL_EXPORTER_OTLP_COMPRESSION=gzip` gzips every
    /// request; the phase histogram has buckets below 5 ms, filled as report.json's values say (which
    /// bucket a loopback connect lands in depends on the machine's load, so only that agreement is asserted).
    @Test func theSDKVariablesAreHonouredAndPhasesHaveFineBuckets() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.run("/usr/bin/env", ["OTEL_SERVICE_NAME=edge-prober",
                                                      "OTEL_RESOURCE_ATTRIBUTES=service.name=not-this,deployment.environment.name=lab,team=net%20ops",
                                                      "OTEL_EXPORTER_OTLP_COMPRESSION=gzip",
                                                      Harness.sonde, "probe", target.http + "/bytes/10", "--count", "4",
                                                      "--otlp", receiver.endpoint, "--output-dir", output], timeout: 60)
        #expect(result.status == 0 && !result.stderr.contains("OTLP"), "\(result.stderr)")
        let facts = try receiver.conventions(report: try OTLPExportCLITests.runFolder(output) + "/report.json")
        let encodings = facts["encodings"] as? [Any] ?? []
        #expect(encodings.count == 2 && encodings.allSatisfy { $0 as? String == "gzip" }, "\(encodings)")
        let resources = facts["resources"] as? [[String: Any]] ?? []
        #expect(resources.count >= 2, "\(resources)")
        for resource in resources {
            #expect(resource["service.name"] as? String == "edge-prober", "\(resource)")
            #expect(resource["deployment.environment.name"] as? String == "lab" && resource["team"] as? String == "net ops", "\(resource)")
            #expect(resource["sonde.command"] as? String == "probe", "\(resource)")
        }
        let instances = Set(resources.compactMap { $0["service.instance.id"] as? String })
        #expect(instances.count == 1 && instances.allSatisfy { UUID(uuidString: $0) != nil }, "\(instances)")
        let buckets = facts["phaseBuckets"] as? [[String: Any]] ?? []
        #expect(!buckets.isEmpty)
        for point in buckets {
            let bounds = point["bounds"] as? [Double] ?? []
            #expect(bounds.filter { $0 < 0.005 }.count >= 4, "\(point)")
            #expect(point["counts"] as? [Int] == point["expected"] as? [Int], "\(point)")
        }
    }
}
