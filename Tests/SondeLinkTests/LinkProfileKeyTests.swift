import Foundation
import SondeCore
@testable import SondeLink
import Testing

/// The key table is the one declaration of every `--link` key: the parser, its refusals and
/// docs/link.md's table follow from it; `nat64` is a word of it, `app-review` a preset.
@Suite struct LinkProfileKeyTests {
    private func problem(_ text: String) -> SettingProblem? {
        do { _ = try LinkProfileParser.parse(text); return nil } catch { return error }
    }

    /// docs/link.md's key table is `LinkProfileKey.markdownTable`, line for line.
    @Test func theDocsTableIsTheKeyTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/link.md"), encoding: .utf8)
        let marker = "<!-- generated from LinkProfileKey.all"
        let lines = docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix(marker) })
        let table = lines[(start + 1)...].prefix { $0.hasPrefix("|") }.joined(separator: "\n") + "\n"
        #expect(table == LinkProfileKey.markdownTable, "docs/link.md's key table differs; it should be:\n\(LinkProfileKey.markdownTable)")
    }

    @Test func everyNameIsDeclaredOnceAndParses() throws {
        let names = LinkProfileKey.allNames
        #expect(Set(names).count == names.count)
        #expect(names.contains("jitter") && names.contains("nat64"))
        for key in LinkProfileKey.all { #expect(!key.value.isEmpty && !key.range.isEmpty) }
        // The unknown-key refusal lists the table.
        let unknown = try #require(problem("wobble=1"))
        #expect(unknown.message.contains(names.joined(separator: ", ")), "\(unknown.message)")
    }

    @Test func nat64IsAWordAfterAPresetOrAlone() throws {
        let alone = try LinkProfileParser.parse("nat64")
        #expect(alone.nat64 && alone.name == "nat64" && alone.down == LinkProfile.Direction())
        let lte = try LinkProfileParser.parse("lte,nat64")
        #expect(lte.nat64 && lte.name == "lte+nat64" && lte.up.delayNs == 65_000_000)
        #expect(try LinkProfileParser.parse("lte,nat64,loss-down=1%").name == "lte+nat64+")
        #expect(try LinkProfileParser.parse("nat64,delay-down=20ms").down.delayNs == 20_000_000)
        #expect(try LinkProfileParser.parse("lte,nat64,name=v6lte").name == "v6lte")
        #expect(!(try LinkProfileParser.parse("lte").nat64))
        #expect(lte.conditions.nat64 && lte.conditions.summary.contains("IPv6-only"), "\(lte.conditions.summary)")
    }

    @Test func nat64IsRefusedTwiceOrWithAValue() throws {
        #expect(problem("lte,nat64,nat64")?.key == "nat64")
        #expect(problem("app-review,nat64")?.message.contains("twice") == true)
        #expect(problem("lte,nat64=yes")?.message.contains("takes no value") == true)
        #expect(problem("lte,jitter")?.message.contains("takes a value") == true)
        #expect(problem("nat46")?.message.contains("nat64") == true)
    }

    @Test func appReviewIsWifiOverNAT64() throws {
        let review = try LinkProfileParser.parse("app-review")
        let wifi = try LinkProfileParser.parse("wifi")
        #expect(review.nat64 && review.name == "app-review")
        #expect(review.down == wifi.down && review.up == wifi.up)
        #expect(LinkPresets.names.contains("app-review"))
    }
}
