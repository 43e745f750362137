import Foundation
import Testing

/// The example suite examples/suites/realtime.yaml (an sse check, a probe with a GraphQL query, a
/// soak holding a GraphQL subscription) run by `sonde run` against the peers of StreamCLITests
/// (aiohttp-sse, Fixtures/sse_server.py), GraphQLCLITests (ariadne, Fixtures/graphql_peer.py) and
/// GraphQLSubscriptionCLITests (ariadne's graphql-transport-ws, Fixtures/graphql_ws_peer.py), its
/// URLs given through the environment (`${SONDE_SSE_URL}`, …).
@Suite(.serialized) struct RealtimeSuiteCLITests {
    @Test func theRealtimeExampleSuiteRunsEveryKind() throws {
        let sse = try StreamCLITests.Peer()
        let graphql = try GraphQLCLITests.Peer()
        let subscriptions = try GraphQLSubscriptionCLITests.Peer(["ariadne"])
        for (name, value) in ["SONDE_SSE_URL": "http://127.0.0.1:\(sse.port)/events?interval=0.05", "SONDE_GRAPHQL_URL": graphql.url,
                              "SONDE_GRAPHQL_WS_URL": subscriptions.url] { setenv(name, value, 1) }
        let suite = Harness.root + "/examples/suites/realtime.yaml"
        #expect(try Harness.run("/usr/bin/env", ["python3", Harness.root + "/scripts/validate-suite.py", suite]).status == 0)
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["run", suite, "--progress", "off", "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix("history.sqlite") }))
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == ["ticker", "user", "ticks"])
        #expect(checks.map { $0["kind"] as? String } == ["sse", "probe", "soak"])
        for check in checks {
            #expect(check["status"] as? String == "passed", "\(check)")
            #expect(((check["thresholds"] as? [[String: Any]]) ?? []).allSatisfy { $0["passed"] as? Bool == true }, "\(check)")
        }
        // Each kind's section: the streams, the GraphQL operation as the request's name, the subscription.
        let stream = try #require((report["streams"] as? [[String: Any]])?.first)
        #expect(stream["check"] as? String == "ticker" && (stream["total"] as? [String: Any])?["events"] as? Int == 40, "\(stream)")
        #expect((stream["metrics"] as? [String: Any])?["sse.events.count"] as? Double == 40)
        let requests = ((report["summary"] as? [String: Any])?["byRequest"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(requests.contains("GetUser"), "\(requests)")
        let soak = try #require((report["soaks"] as? [[String: Any]])?.first)
        let subscription = try #require(soak["subscription"] as? [String: Any], "\(soak)")
        #expect((subscription["nexts"] as? Int ?? 0) >= 10 && subscription["acked"] as? Int == 1, "\(subscription)")
        #expect(try !subscriptions.events("subscribe").isEmpty)
        #expect(try graphql.requests().contains { ($0["operationName"] as? String) == "GetUser" })
    }
}
