import Foundation
import SondeSuite
import Testing
import Yams

@Suite struct DurationValueTests {
    @Test func textRoundTripsThroughDescription() {
        for text in ["500ms", "5s", "2m", "1h", "90s", "1500ms", "0.25ms", "0ms"] {
            let value = DurationValue(text: text)
            #expect(value != nil, "\(text)")
            #expect(DurationValue(text: value!.description) == value, "\(text) → \(value!.description)")
        }
        #expect(DurationValue(text: "5")?.seconds == 5)
        #expect(DurationValue(text: "2m")?.description == "2m")
        #expect(DurationValue(text: "120s")?.description == "2m")
        #expect(DurationValue(text: "5 parsecs") == nil)
        #expect(DurationValue(text: "-1s") == nil)
    }

    @Test func decodesTextOrBareSecondsAndRefusesOthers() throws {
        struct Holder: Codable, Equatable { var d: DurationValue; var s: SizeValue }
        let decoded = try YAMLDecoder().decode(Holder.self, from: "d: 250ms\ns: 4KiB\n")
        #expect(decoded == Holder(d: DurationValue(seconds: 0.25), s: SizeValue(bytes: 4096)))
        #expect(try YAMLDecoder().decode(Holder.self, from: "d: 3\ns: 10\n").d.seconds == 3)
        #expect(throws: DecodingError.self) { try YAMLDecoder().decode(Holder.self, from: "d: soon\ns: 1\n") }
        #expect(throws: DecodingError.self) { try YAMLDecoder().decode(Holder.self, from: "d: 1s\ns: lots\n") }
        let again = try YAMLDecoder().decode(Holder.self, from: try YAMLEncoder().encode(decoded))
        #expect(again == decoded)
    }
}
