import Foundation
import Testing
@testable import SondeCore

@Suite struct JSONReaderTests {
    @Test func readsWhatJSONOutputWrites() throws {
        let task = JSONOutputTests.fullTask()
        let read = try JSONReader.read(ProbeTask.self, from: JSONOutputTests.written(task))
        #expect(read == task)
    }

    @Test func readsWhatJSONEncoderWrites() throws {
        let task = JSONOutputTests.fullTask()
        for formatting: JSONEncoder.OutputFormatting in [[], [.sortedKeys], [.prettyPrinted, .sortedKeys]] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            #expect(try JSONReader.read(ProbeTask.self, from: encoder.encode(task)) == task)
        }
    }

    @Test func unescapesEverythingJSONAllows() throws {
        var reader = JSONReader(Array(#"  "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83e\udd8a\u0000" "#.utf8))
        #expect(try reader.readString() == "a\"b\\c/d\u{8}\u{C}\n\r\té🦊\u{0}")
    }

    @Test func skipsUnknownKeysAndToleratesAbsentOptionals() throws {
        let text = #"{"future":{"x":[1,2,{"y":null}],"z":"w"},"url":"u","iteration":0,"redirectCount":0,"#
            + #""taskInterval":{"start":"2026-11-22T00:00:00.000001Z","durationMs":1.5e0},"transactionMetrics":[]}"#
        let task = try JSONReader.read(ProbeTask.self, from: Array(text.utf8))
        #expect(task.url == "u" && task.error == nil && task.taskInterval.durationMs == 1.5)
        #expect(task.taskInterval.start.microsecondsSince1970 % 1_000_000 == 1)
    }

    @Test(arguments: [
        #"{"url":"u"}"#,                                    // required keys missing
        #"{"url":"u","iteration":0.5,"redirectCount":0,"taskInterval":{"start":"2026-11-22T00:00:00Z","durationMs":1},"transactionMetrics":[]}"#,
        #"{"url":"u\x","iteration":0}"#,                    // bad escape
        "{\"url\":\"a\u{1}b\"}",                            // raw control character
        #"{"url":"\ud800"}"#,                               // unpaired surrogate
        #"{"iteration":01}"#,                               // leading zero
        #"{"url":"u",}"#,                                   // trailing comma
        #"{"url":"u"} x"#,                                  // trailing text
        #"{"url":"u""#,                                     // cut mid-write
        "",
    ])
    func rejectsWhatIsNotATask(text: String) {
        #expect(throws: JSONReadError.self) { try JSONReader.read(ProbeTask.self, from: Array(text.utf8)) }
    }

    @Test func deepNestingInUnknownKeysIsBounded() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let text = #"{"x":"# + deep + "}"
        #expect(throws: JSONReadError.self) { try JSONReader.read(ProbeTask.self, from: Array(text.utf8)) }
    }
}
