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

    /// The field reader's two passes (`JSONFieldReader`, `JSONIndexedFieldReader`): keys in the
    /// fields' order read in one pass; any other order, unknown keys and duplicates read by index;
    /// a missing required key is named; a line of 200,000 unknown keys is read in linear time.
    @Test func fieldReaderTakesAnyOrderAndNamesWhatIsMissing() throws {
        let task = JSONOutputTests.fullTask()
        let written = String(decoding: JSONOutputTests.written(task), as: UTF8.self)
        // The task's members, last first (each member of the top object on its own).
        var members: [String] = []
        var reader = JSONReader(Array(written.utf8))
        try reader.readObject { (member: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            let range = try member.readRawValue()
            members.append("\"\(key)\":" + String(decoding: Array(written.utf8)[range], as: UTF8.self))
        }
        let reversed = "{" + members.reversed().joined(separator: ",") + "}"
        #expect(try JSONReader.read(ProbeTask.self, from: Array(reversed.utf8)) == task)
        let duplicated = "{" + (members + [#""url":"last""#]).joined(separator: ",") + "}"
        #expect(try JSONReader.read(ProbeTask.self, from: Array(duplicated.utf8)).url == task.url, "in order: the first wins")

        let missing = "{" + members.filter { !$0.hasPrefix(#""redirectCount""#) }.joined(separator: ",") + "}"
        #expect {
            try JSONReader.read(ProbeTask.self, from: Array(missing.utf8))
        } throws: { error in
            (error as? JSONReadError)?.problem.contains("redirectCount") == true
        }

        let noise = (0..<200_000).map { #""k\#($0)":0"# }.joined(separator: ",")
        let flooded = "{" + noise + "," + members.joined(separator: ",") + "}"
        let started = Date()
        #expect(try JSONReader.read(ProbeTask.self, from: Array(flooded.utf8)) == task)
        #expect(Date().timeIntervalSince(started) < 10, "200,000 unknown keys took \(Date().timeIntervalSince(started)) s")
    }
}
