import Foundation
import Testing
@testable import SondeCore

/// A kind extension's part of a soak (`SoakPart`, `ModelParts`), with a part declared here as an
/// extension declares its own: it is written under its key by the fast writer and `Encodable`, read
/// back by the fast reader (keys in order or not) and `Decodable`, summed and judged by the
/// builder, which keeps the parts it knows only.
@Suite struct SoakPartTests {
    /// The attempt's record of a made-up subprotocol: how many `tick`s came.
    struct Ticks: FieldModel, Equatable {
        static let blank = Ticks()
        var ticks = 0
        var last: String?
        mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
            try v.visit("last", &last, .field)
            try v.visit("ticks", &ticks, .count)
        }
    }

    /// Sums the attempts' `ticks`, and fails the soak when none came.
    struct TickPart: SoakPart {
        var attemptKey: String { "ticks" }
        var summaryKey: String { "tickTotal" }
        var configKey: String { "tick" }
        var attemptSchema: ModelSchema { Ticks.schemaDefinition }
        var summarySchema: ModelSchema { Ticks.schemaDefinition }
        var configSchema: ModelSchema { Ticks.schemaDefinition }
        func summary(config: SoakConfig, attempts: [SoakAttempt], eventGapsMs: DistributionSummary?) -> (part: any JSONWritable, problem: String?)? {
            guard config.parts.value(configKey, as: Ticks.self) != nil else { return nil }
            var total = Ticks()
            for attempt in attempts { total.ticks += attempt.parts.value(attemptKey, as: Ticks.self)?.ticks ?? 0 }
            total.last = eventGapsMs.map { "gaps \($0.count)" }
            return (total, total.ticks == 0 ? "no tick came" : nil)
        }
    }

    let start = Timestamp(microsecondsSince1970: 1_800_000_000_000_000)

    func attempt(_ connection: Int, ticks: Int?) -> SoakAttempt {
        var attempt = SoakAttempt(connection: connection, attempt: 1, startedAt: start, backoffMs: nil, backoffFailure: nil)
        attempt.openedAt = start
        if let ticks { attempt.parts.set("ticks", Ticks(ticks: ticks, last: "t\(ticks)")) }
        return attempt
    }

    func written(_ value: some JSONWritable) -> [UInt8] {
        var output = JSONOutput()
        value.writeJSON(to: &output)
        return output.bytes
    }

    @Test func aPartIsWrittenUnderItsKeyAndReadBackEveryWay() throws {
        let attempt = attempt(1, ticks: 3)
        let ours = written(attempt)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ours)) as? [String: Any])
        #expect((object["ticks"] as? [String: Any])?["ticks"] as? Int == 3)
        #expect(try JSONReader.read(SoakAttempt.self, from: ours) == attempt)
        #expect(try JSONDecoder().decode(SoakAttempt.self, from: Data(ours)).parts.value("ticks", as: Ticks.self) == Ticks(ticks: 3, last: "t3"))
        let foundations = try JSONEncoder().encode(attempt)
        #expect(try JSONSerialization.jsonObject(with: foundations) as? NSDictionary == JSONSerialization.jsonObject(with: Data(ours)) as? NSDictionary)
        #expect(try JSONReader.read(SoakAttempt.self, from: Array(foundations)).parts.value("ticks", as: Ticks.self)?.ticks == 3)
        // Keys in another order (the part first): the reader finds the fields and the part alike.
        let text = String(decoding: ours, as: UTF8.self)
        let part = #""ticks":{"last":"t3","ticks":3}"#
        #expect(text.contains(part))
        let reordered = "{" + part + "," + text.dropFirst().replacingOccurrences(of: "," + part, with: "")
        #expect(try JSONReader.read(SoakAttempt.self, from: Array(reordered.utf8)) == attempt)
        // A part whose numbers lie outside their range is no part.
        let bad = text.replacingOccurrences(of: #""ticks":3"#, with: #""ticks":-4"#)
        #expect(try JSONReader.read(SoakAttempt.self, from: Array(bad.utf8)).parts.value("ticks", as: Ticks.self) == nil)
    }

    @Test func theBuilderSumsAndJudgesItsPartsAndKeepsTheirKeysOnly() throws {
        var config = SoakConfig(durationS: 10, connections: 2, rampS: 0, pingIntervalS: 1, pongTimeoutS: 1, messageRate: 0, messageSize: 64,
                                subprotocols: [], headers: [], backoff: BackoffPolicy(), stableAfterS: 5, maxAttempts: nil,
                                connectTimeoutS: 2, insecure: false)
        config.parts.set("tick", Ticks())
        var stray = attempt(2, ticks: 4)
        stray.parts.set("unknown", Ticks(ticks: 9))
        var builder = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start, parts: [TickPart()])
        builder.add(attempt(1, ticks: 3))
        builder.add(stray)
        var samples = SoakSamples()
        samples.nextGaps = [1000, 2000]
        builder.add(samples)
        let report = builder.result(finishedAt: start.adding(microseconds: 10_000_000))
        #expect(report.parts.value("tickTotal", as: Ticks.self) == Ticks(ticks: 7, last: "gaps 2"))
        #expect(report.passed)
        #expect(report.attempts.allSatisfy { $0.parts.values.keys.sorted() == ["ticks"] })
        // Written and read back: the soak's part and its config's.
        let back = try JSONReader.read(SoakReport.self, from: written(report))
        #expect(back.parts == report.parts && back.attempts == report.attempts && back.config == report.config)
        #expect(back.config.parts.value("tick", as: Ticks.self) == Ticks())

        // None came: the part fails the soak with its words; without the part, nothing is summed.
        config.connections = 1
        var quiet = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start, parts: [TickPart()])
        quiet.add(attempt(1, ticks: 0))
        let failed = quiet.result(finishedAt: start.adding(microseconds: 10_000_000))
        #expect(!failed.passed && failed.problems == ["no tick came"])
        var plain = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        plain.add(attempt(1, ticks: 0))
        let unsummed = plain.result(finishedAt: start.adding(microseconds: 10_000_000))
        #expect(unsummed.parts.isEmpty && unsummed.attempts[0].parts.isEmpty && unsummed.passed)
    }

    @Test func theSchemaAddsThePartsWhereTheyGo() throws {
        let attempt = SoakAttempt.schemaDefinition(parts: [TickPart()]).render()
        #expect(attempt.contains(#""ticks":{"type":"object""#))
        let soak = SoakReport.schemaDefinition(parts: [TickPart()]).render()
        #expect(soak.contains(#""tickTotal":{"type":"object""#) && soak.contains(#""tick":{"type":"object""#))
        #expect(!SoakReport.schemaDefinition.render().contains(#""tick""#))
    }
}
