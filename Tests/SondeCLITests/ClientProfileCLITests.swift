import Foundation
import Testing

/// Requests as a mobile stack sends them (issue 30's client profiles), against nginx: `/gz/`
/// compresses when asked, `/encoded/` sends gzip bodies whatever was asked (a 20 MB bomb in
/// about 20 KB). curl is the oracle of what came off the wire.
@Suite struct ClientProfileCLITests {
    /// The last transaction of the first task, and the task's error.
    static func transaction(_ result: Harness.Result) throws -> (transaction: [String: Any], error: [String: Any]?) {
        let report = try Harness.json(result.stdout)
        let task = try #require((report["probes"] as? [[String: Any]])?.first)
        let transaction = try #require((task["transactionMetrics"] as? [[String: Any]])?.last)
        return (transaction, task["error"] as? [String: Any])
    }

    static func curlSize(_ arguments: [String]) throws -> Int64? {
        let result = try Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{size_download}"] + arguments)
        return Int64(result.stdout)
    }

    static func headers(_ transaction: [String: Any]) -> [String: String] {
        let list = (transaction["request"] as? [String: Any])?["headers"] as? [[String: String]] ?? []
        return Dictionary(list.map { ($0["name"] ?? "", $0["value"] ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// URLSession's profile (the default) asks for gzip, deflate and br, and records the body on
    /// the wire (curl --compressed's size) and decoded (the file's size); OkHttp's asks for gzip
    /// (over HTTP/2); `plain` asks for nothing and fetches what curl without --compressed fetches.
    @Test func eachClientAsksAsItsStackDoesAndBothSizesAreRecorded() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let url = "http://127.0.0.1:\(nginx.http)/gz/items.json"
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: nginx.directory + "/www/items.json")[.size] as? Int)
        let work = Harness.temporaryDirectory()

        let urlsessionOutput = Harness.temporaryDirectory()
        let urlsession = try Harness.sonde(["probe", "--json", "--output-dir", urlsessionOutput, url])
        #expect(urlsession.status == 0, "\(urlsession.stderr)")
        let (decoded, _) = try Self.transaction(urlsession)
        let compressed = try #require(try Self.curlSize(["--compressed", url]))
        #expect(Self.headers(decoded)["Accept-Encoding"] == "gzip, deflate, br")
        #expect(decoded["contentEncoding"] as? String == "gzip")
        #expect((decoded["countOfResponseBodyBytesReceived"] as? NSNumber)?.int64Value == compressed)
        #expect((decoded["countOfResponseBodyBytesAfterDecoding"] as? NSNumber)?.intValue == fileSize)
        #expect(compressed * 5 < Int64(fileSize), "the fixture compresses: \(compressed) of \(fileSize)")
        // HAR 1.2: `content.size` is the decoded length, `content.compression` the bytes saved,
        // `bodySize` what came off the wire.
        let har = try Harness.json(String(contentsOfFile: try OTLPExportCLITests.runFolder(urlsessionOutput) + "/report.har", encoding: .utf8))
        let entry = try #require(((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        let response = try #require(entry["response"] as? [String: Any])
        let content = try #require(response["content"] as? [String: Any])
        #expect((content["size"] as? NSNumber)?.intValue == fileSize, "\(content)")
        #expect((content["compression"] as? NSNumber)?.int64Value == Int64(fileSize) - compressed, "\(content)")
        #expect((response["bodySize"] as? NSNumber)?.int64Value == compressed, "\(response)")

        let okhttp = try Harness.sonde(["probe", "--json", "--client", "okhttp", "--http2", "--cacert", nginx.certificate, "--output-dir", work,
                                        "https://127.0.0.1:\(nginx.https)/gz/items.json"])
        #expect(okhttp.status == 0, "\(okhttp.stderr)")
        let (h2, _) = try Self.transaction(okhttp)
        #expect(Self.headers(h2)["Accept-Encoding"] == "gzip")
        #expect(h2["networkProtocolName"] as? String == "h2")
        #expect(h2["contentEncoding"] as? String == "gzip")
        #expect((h2["countOfResponseBodyBytesAfterDecoding"] as? NSNumber)?.intValue == fileSize)

        let plain = try Harness.sonde(["probe", "--json", "--client", "plain", "--output-dir", work, url])
        #expect(plain.status == 0, "\(plain.stderr)")
        let (raw, _) = try Self.transaction(plain)
        #expect(Self.headers(raw)["Accept-Encoding"] == nil)
        #expect(raw["contentEncoding"] is NSNull || raw["contentEncoding"] == nil)
        #expect((raw["countOfResponseBodyBytesReceived"] as? NSNumber)?.int64Value == (try Self.curlSize([url])))
        #expect((raw["countOfResponseBodyBytesAfterDecoding"] as? NSNumber)?.intValue == fileSize)

        // A header the user gives wins: libcurl sends it, and nothing is decoded behind it.
        let own = try Harness.sonde(["probe", "--json", "-H", "Accept-Encoding: identity", "--output-dir", work, url])
        let (identity, _) = try Self.transaction(own)
        #expect(Self.headers(identity)["Accept-Encoding"] == "identity")
        #expect((identity["countOfResponseBodyBytesReceived"] as? NSNumber)?.intValue == fileSize)
    }

    /// 20 MB of zeros gzipped to about 20 KB: the decoded body is cut near 64× what came off the
    /// wire, as its own error, and the run fails; with `plain` the same bytes are just bytes.
    @Test func aDecompressionBombIsCutWithItsOwnCause() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let url = "http://127.0.0.1:\(nginx.http)/encoded/bomb.gz"
        let work = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--json", "--output-dir", work, url])
        #expect(result.status == 1, "\(result.stderr)")
        let (transaction, error) = try Self.transaction(result)
        #expect(error?["code"] as? String == "contentDecodingFailed", "\(String(describing: error))")
        #expect(error?["reason"] as? String == "decodedTooLarge")
        let decoded = (transaction["countOfResponseBodyBytesAfterDecoding"] as? NSNumber)?.int64Value ?? 0
        #expect(decoded > 1 << 20 && decoded <= 64 * (20_000 + 65_536) + 65_536, "cut at \(decoded) decoded bytes")

        let plain = try Harness.sonde(["probe", "--json", "--client", "plain", "--output-dir", work, url])
        #expect(plain.status == 0, "\(plain.stderr)")
        let (raw, _) = try Self.transaction(plain)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: nginx.directory + "/encoded/bomb.gz")[.size] as? Int)
        #expect((raw["countOfResponseBodyBytesAfterDecoding"] as? NSNumber)?.intValue == size)
    }
}
