import SondeCore
import Testing

/// sonde's one parser of durations and sizes: the same text means the same everywhere.
@Suite struct QuantityTests {
    @Test(arguments: [
        ("500ms", 0.5), ("5s", 5), ("2m", 120), ("1h", 3600), ("250us", 0.00025), ("250µs", 0.00025),
        ("5", 5), ("0", 0), ("1.5s", 1.5), (" 10 s ", 10), ("1e3ms", 1), ("7d", 604_800), ("0.5d", 43_200),
    ])
    func durationsAreSeconds(text: String, seconds: Double) {
        #expect(Quantity.duration(text) == seconds)
    }

    @Test(arguments: ["", "s", "-5s", "5x", "5 parsecs", "1..2s", "nan", "inf", "1e999s", "5s5", "e5s", "1e-400s"])
    func notDurations(text: String) {
        #expect(Quantity.duration(text) == nil)
    }

    @Test func durationPartsKeepTheUnitAsWritten() {
        let withUnit = Quantity.durationParts("200ms")
        #expect(withUnit?.value == 200 && withUnit?.unit == "ms" && withUnit?.unitSeconds == 0.001)
        let bare = Quantity.durationParts("200")
        #expect(bare?.value == 200 && bare?.unit == "" && bare?.unitSeconds == nil)
    }

    @Test(arguments: [
        ("64", Int64(64)), ("1KiB", 1024), ("16MiB", 16_777_216), ("1GiB", 1_073_741_824), ("2KB", 2000), ("1.5kib", 1536),
        ("3 B", 3),
    ])
    func sizesAreBytes(text: String, bytes: Int64) {
        #expect(Quantity.size(text) == bytes)
    }

    @Test(arguments: ["", "KiB", "-1", "1TiB", "1e300GiB", "12 apples"])
    func notSizes(text: String) {
        #expect(Quantity.size(text) == nil)
    }
}
