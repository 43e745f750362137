import Foundation
import SondeCore
import Testing
@testable import SondeHTTP

/// The Alt-Svc header reader (RFC 7838 §3) and the check's cache files (libcurl's format).
struct AltSvcTests {
    @Test func readsAlternativesAsServersSendThem() {
        let header = AltSvcHeader(#"h3=":443"; ma=86400, h3-29=":443"; ma=86400, h2="alt.example.com:8443"; persist=1"#)
        #expect(!header.clear)
        #expect(header.alternatives.map(\.protocolID) == ["h3", "h3-29", "h2"])
        #expect(header.alternatives.filter(\.isHTTP3).count == 2)
        #expect(header.alternatives[0] == .init(protocolID: "h3", host: nil, port: 443, maxAge: 86400))
        #expect(header.alternatives[2].host == "alt.example.com" && header.alternatives[2].port == 8443)
        #expect(header.alternatives[0].authority(originHost: "api.example.com") == "api.example.com:443")
        #expect(AltSvcHeader(#"h3="[::1]:4433""#).alternatives.first?.authority(originHost: "x") == "[::1]:4433")
        #expect(AltSvcHeader(" clear ").clear)
        // A comma inside quotes does not split.
        #expect(AltSvcHeader(#"h3=":1"; note="a,b", h3=":2""#).alternatives.map(\.port) == [1, 2])
    }

    @Test func hostileHeadersCostLittleAndNeverTrap() {
        #expect(AltSvcHeader(#"h3=":0""#).alternatives.isEmpty)
        #expect(AltSvcHeader(#"h3=":65536""#).alternatives.isEmpty)
        #expect(AltSvcHeader(#"h3=":99999999999999999999999""#).alternatives.isEmpty)
        #expect(AltSvcHeader(#"h3=":443"; ma=99999999999999999999"#).alternatives.first?.maxAge == nil)
        #expect(AltSvcHeader(#"h3=443, ="":1", h3=":""#).alternatives.isEmpty)
        #expect(AltSvcHeader(#"h3=""#).alternatives.isEmpty)
        let many = Array(repeating: #"h3=":443""#, count: 10_000).joined(separator: ",")
        #expect(AltSvcHeader(many).alternatives.count <= AltSvcHeader.maxAlternatives)
        #expect(AltSvcHeader(String(repeating: "\"", count: 100_000)).alternatives.isEmpty)
    }

    @Test func handleFilesCarryWhatTheCheckLearnedAndTheLaterExpiryWins() throws {
        let cache = try AltSvcCache(persistentFile: nil)
        let first = try cache.handleFile()
        // What libcurl writes in curl_easy_cleanup.
        try """
        # Your alt-svc cache. https://curl.se/docs/alt-svc.html
        h2 127.0.0.1 8443 h3 127.0.0.1 4433 "20300101 00:00:00" 0 0
        h2 127.0.0.1 8443 h3 127.0.0.1 4433 "20290101 00:00:00" 0 0
        not a cache line
        h2 a 1 h3 b two "20300101 00:00:00" 0 0

        """.write(toFile: first, atomically: false, encoding: .utf8)
        cache.collect([first])
        #expect(!FileManager.default.fileExists(atPath: first))
        let second = try cache.handleFile()
        let lines = try String(contentsOfFile: second, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == [#"h2 127.0.0.1 8443 h3 127.0.0.1 4433 "20300101 00:00:00" 0 0"#])
        try cache.finish()
        #expect(!FileManager.default.fileExists(atPath: second))
    }

    /// What libcurl wrote is the cache from then on: an origin's `clear` (or a flush) that
    /// libcurl applied is not undone by the lines sonde had before. CRLF files read; expired
    /// lines dropped; at most `maxLines` kept, the latest expiries.
    @Test func libcurlsOwnFileIsTheTruthAndExpiredOrExcessLinesGo() throws {
        let cache = try AltSvcCache(persistentFile: nil)
        let first = try cache.handleFile()
        try "h2 a 443 h3 a 443 \"20300101 00:00:00\" 0 0\r\nh2 b 443 h3 b 443 \"20300101 00:00:00\" 0 0\r\n"
            .write(toFile: first, atomically: false, encoding: .utf8)
        cache.collect([first])
        #expect(try String(contentsOfFile: try cache.handleFile(), encoding: .utf8).contains("h2 b 443"))
        let second = try cache.handleFile()
        // libcurl saw `Alt-Svc: clear` from b and wrote a alone.
        try "# comment\nh2 a 443 h3 a 443 \"20300101 00:00:00\" 0 0\n".write(toFile: second, atomically: false, encoding: .utf8)
        cache.collect([second])
        let now = try String(contentsOfFile: try cache.handleFile(), encoding: .utf8)
        #expect(now.contains("h2 a 443") && !now.contains("h2 b 443"), "\(now)")
        let expired = AltSvcCache.parse(["h2 c 443 h3 c 443 \"20000101 00:00:00\" 0 0"])
        #expect(expired.isEmpty)
        let many = (0..<3000).map { "h2 h\($0) 443 h3 h\($0) 443 \"2030\(String(format: "%04d", $0 % 1200 + 101)) 00:00:00\" 0 0" }
        #expect(AltSvcCache.parse([many.joined(separator: "\n")]).count == AltSvcCache.maxLines)
        #expect(AltSvcCache.expiryText(Timestamp(microsecondsSince1970: 1_790_000_000_000_000)) == "\"20260921 14:13:20\"")
        try cache.finish()
    }

    @Test func thePersistentFileIsReadAndWrittenWithoutFollowingLinks() throws {
        let folder = NSTemporaryDirectory() + "sonde-alt-svc-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/cache.txt"
        try #"h2 example.org 443 h3 example.org 443 "20300101 00:00:00" 0 0"#.write(toFile: file, atomically: false, encoding: .utf8)
        let cache = try AltSvcCache(persistentFile: file)
        let handle = try String(contentsOfFile: try cache.handleFile(), encoding: .utf8)
        #expect(handle.contains("h2 example.org 443 h3 example.org 443"))
        try cache.finish()
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("h2 example.org 443 h3 example.org 443"))
        // A list of hosts visited: written for its owner only.
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        // A link at the name is refused when read.
        let link = folder + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(throws: TaskError.self) { _ = try AltSvcCache(persistentFile: link) }
    }

    /// A line whose alternative is on another host is never loaded, from the `--alt-svc` file or
    /// from what libcurl wrote back, so it never reaches a handle nor the file again (issue 27 #2).
    @Test func aLineForAnotherHostIsNeverLoaded() throws {
        let folder = NSTemporaryDirectory() + "sonde-alt-svc-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/cache.txt"
        try """
        h2 127.0.0.1 8443 h3 192.0.2.1 443 "20300101 00:00:00" 0 0
        h2 127.0.0.1 8443 h3 127.0.0.1 4433 "20300101 00:00:00" 0 0
        h2 Example.org 443 h3 example.ORG 443 "20300101 00:00:00" 0 0
        h2 example.org 443 h3 evil.example 443 "20300101 00:00:00" 0 0

        """.write(toFile: file, atomically: false, encoding: .utf8)
        let cache = try AltSvcCache(persistentFile: file)
        let handle = try cache.handleFile()
        let lines = try String(contentsOfFile: handle, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count == 2 && lines.allSatisfy { !$0.contains("192.0.2.1") && !$0.contains("evil") }, "\(lines)")
        // libcurl learned one from a header of another run's origin: not kept either.
        try #"h2 127.0.0.1 8443 h3 127.0.0.2 4433 "20300101 00:00:00" 0 0"#.write(toFile: handle, atomically: false, encoding: .utf8)
        cache.collect([handle])
        try cache.finish()
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!written.contains("127.0.0.2") && !written.contains("192.0.2.1"), "\(written)")
    }

    /// libcurl 8.23 says which alternative it took only in its verbose text; an alternative that
    /// failed leaves the cache (also when libcurl writes it back) and its origin uses none after.
    @Test func aFailedAlternativeLeavesTheCacheAndItsOriginUsesNone() throws {
        let text = "  Trying 127.0.0.1:4433...\nAlt-svc connecting from [h2]127.0.0.1:8443 to [h3]127.0.0.1:4433\nsendmsg() returned -1 (errno 111)\n"
        #expect(AltSvcCache.alternativeTaken(libcurlText: text).map { "\($0.host) \($0.port)" } == "127.0.0.1 4433")
        #expect(AltSvcCache.alternativeTaken(libcurlText: "Alt-svc connecting from [h2]::1:8443 to [h3]::1:4433").map { "\($0.host) \($0.port)" } == "::1 4433")
        #expect(AltSvcCache.alternativeTaken(libcurlText: "  Trying 127.0.0.1:8443...\n") == nil)
        #expect(AltSvcCache.alternativeTaken(libcurlText: "Alt-svc connecting from [h2]a:1 to [h3]b:99999") == nil)

        let cache = try AltSvcCache(persistentFile: nil)
        let first = try cache.handleFile()
        let learned = """
        h2 127.0.0.1 8443 h3 127.0.0.1 4433 "20300101 00:00:00" 0 0
        h2 127.0.0.1 9443 h3 127.0.0.1 4433 "20300101 00:00:00" 0 0

        """
        try learned.write(toFile: first, atomically: false, encoding: .utf8)
        cache.collect([first])
        #expect(cache.mayUseAlternative(origin: "https://127.0.0.1:8443", host: "127.0.0.1", port: 8443))
        #expect(!cache.usesNoAlternative(origin: "https://127.0.0.1:8443"))
        cache.markFailed(origin: "https://127.0.0.1:8443", originHost: "127.0.0.1", originPort: 8443,
                         alternativeHost: "127.0.0.1", alternativePort: 4433)
        #expect(cache.usesNoAlternative(origin: "https://127.0.0.1:8443") && !cache.usesNoAlternative(origin: "https://127.0.0.1:9443"))
        // libcurl's handles still had the line and wrote it back: it stays out.
        let second = try cache.handleFile()
        try learned.write(toFile: second, atomically: false, encoding: .utf8)
        cache.collect([second])
        let now = try String(contentsOfFile: try cache.handleFile(), encoding: .utf8)
        #expect(!now.contains("8443") && now.contains("h2 127.0.0.1 9443 h3 127.0.0.1 4433"), "\(now)")
        try cache.finish()
    }

    @Test func theUseNamesTheAdvertisement() throws {
        let cache = try AltSvcCache(persistentFile: nil)
        cache.record(origin: "https://a:8443", header: #"h3=":4433"; ma=60"#, connectionID: 1, protocolName: "h2", at: nil)
        let use = cache.use(origin: "https://a:8443", originHost: "a", remoteHost: "127.0.0.1", remotePort: 4433)
        // The alternative is where libcurl connected, not what the header names.
        #expect(use.source == .response && use.alternative == "127.0.0.1:4433" && use.advertisedOnConnection == 1 && use.advertisedOver == "h2")
        cache.record(origin: "https://a:8443", header: "clear", connectionID: 2, protocolName: "h2", at: nil)
        #expect(cache.use(origin: "https://a:8443", originHost: "a", remoteHost: "127.0.0.1", remotePort: 4433).source == .cacheFile)
        try cache.finish()
    }
}
