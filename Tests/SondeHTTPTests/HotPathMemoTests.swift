import SondeCore
import Testing
@testable import SondeHTTP

/// The per-hop memos of the engine's hot path give exactly what the work they save would give.
@Suite struct HotPathMemoTests {
    @Test func urlPartsMemoAnswersAsCurlURLDoes() {
        let urls = ["https://Example.COM/a?b=c", "http://127.0.0.1:8080/x", "https://[::1]:8443/", "not a url",
                    "https://example.com/a?b=c", "HTTP://h/", "", "ftp://h:21/f"]
        var memo = URLPartsMemo()
        for _ in 0..<3 {
            for url in urls { #expect(memo.parts(of: url) == URLParts(url), "\(url)") }
        }
        #expect(memo.parts(of: "https://Example.COM/a?b=c")?.origin == "https://example.com:443")
        #expect(memo.parts(of: "not a url") == nil)
    }

    @Test func urlPartsMemoStaysRightPastItsCapacity() {
        var memo = URLPartsMemo()
        for round in 0..<2 {
            for index in 0..<(URLPartsMemo.capacity + 50) {
                let url = "http://h\(index).example:\(1000 + index)/"
                #expect(memo.parts(of: url)?.port == 1000 + index, "round \(round)")
            }
        }
    }

    @Test func headerStringMemoDecodesAsStringDoes() {
        var memo = HeaderStringMemo()
        var generator = SeededGenerator(seed: 32)
        // Repeats, changes, invalid UTF-8, empty values, long values, and slots past the capacity.
        let pool: [[UInt8]] = [Array("Date".utf8), Array("Thu, 26 Nov 2026 09:38:08 GMT".utf8), [],
                               Array("application/octet-stream".utf8), [0xFF, 0xFE, 0x41], Array("é".utf8),
                               Array(repeating: UInt8(ascii: "x"), count: 300), [0xC3]]
        for _ in 0..<2000 {
            let bytes = pool[Int.random(in: 0..<pool.count, using: &generator)]
            let slot = Int.random(in: 0...(HeaderStringMemo.capacity + 4), using: &generator)
            let made = bytes.withUnsafeBytes { memo.string($0, slot: slot) }
            #expect(made == String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func caseInsensitiveNamesMatchOnlyTheirLetters() {
        #expect(asciiCaseInsensitiveEqual("Content-Encoding", "content-encoding"))
        #expect(asciiCaseInsensitiveEqual("CONTENT-ENCODING", "content-encoding"))
        #expect(!asciiCaseInsensitiveEqual("Content-Encodin", "content-encoding"))
        #expect(!asciiCaseInsensitiveEqual("Content-Encodinh", "content-encoding"))
        #expect(!asciiCaseInsensitiveEqual("Content\u{0D}Encoding", "content-encoding"))  // '-' is not a letter to fold
        #expect(!asciiCaseInsensitiveEqual("Cöntent-Encoding", "content-encoding"))
        #expect(asciiCaseInsensitiveEqual("", ""))
    }
}
