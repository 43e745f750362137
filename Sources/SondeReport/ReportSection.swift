import Foundation
import SondeCore

/// A top-level array of report.json that a check kind fills with its own items (`sonde stream`'s
/// `streams`, `sonde audit`'s `audits`), journalled as `{"name":…,"section":<item>,"type":"section"}`
/// lines (or the line its renderer names, `ReportSectionRenderer.journalLine`) and copied into
/// report.json as they were journalled (or as the kind's renderer reads them, `reportItem`), in
/// order. The kind owns the items' model and schema; an item of a suite check names it as `check`.
public struct ReportSection: Sendable, Equatable {
    /// The report.json key: a lower-case letter, then letters (not one of the document's own keys).
    public var name: String
    /// Each item's JSON, in the order recorded.
    public var items: [[UInt8]]

    public init(name: String, items: [[UInt8]]) {
        self.name = name
        self.items = items
    }

    /// The document's own keys, which no section may take.
    static let reserved: Set<String> = ["schemaVersion", "runDir", "tool", "run", "probes", "summary", "checks", "soaks", "resumeTrials",
                                        "resumeVerdicts", "captures", "thresholds", "baseline"]

    /// Whether `name` may name a section.
    public static func isValid(name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 32, !reserved.contains(name) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
    }

    /// The values of declared threshold metrics the items carry (`DeclaredMetric`): an item may
    /// hold `check` (its suite check) and `metrics` (an object of lower-case metric path → number),
    /// which thresholds on the kind's own metrics read. Items without `metrics` give nothing.
    public static func declaredValues(in sections: [ReportSection]) -> [DeclaredMetricValues] {
        sections.flatMap { section in section.items.compactMap { declaredValues(item: $0) } }
    }

    /// One item's values; nil when it holds no `metrics` object.
    static func declaredValues(item: [UInt8]) -> DeclaredMetricValues? {
        guard let values = try? JSONDecoder().decode(DeclaredMetricValues.self, from: Data(item)) else { return nil }
        return values
    }

    /// The suite check `item` belongs to: its `check` member when that is a string, else nil.
    public static func check(of item: [UInt8]) -> String? {
        var reader = JSONReader(item)
        var check: String?
        do throws(JSONReadError) {
            try reader.readObject { (member: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                if key == "check" { check = try member.readOptionalString() } else { _ = try member.readRawValue() }
            }
        } catch {
            return nil
        }
        return check
    }

    /// The items that belong to `check` (`check(of:)`), or every item when `check` is nil.
    public func items(of check: String?) -> [[UInt8]] {
        guard let check else { return items }
        return items.filter { Self.check(of: $0) == check }
    }

    /// Adds `item` to the section `name` in `sections`, keeping their first-seen order.
    static func add(_ item: [UInt8], to name: String, in sections: inout [ReportSection]) {
        if let index = sections.firstIndex(where: { $0.name == name }) {
            sections[index].items.append(item)
        } else {
            sections.append(ReportSection(name: name, items: [item]))
        }
    }
}

extension ReportSection {
    /// The journal line `{"<type>":<item>,"type":"<type>"}` of an item whose renderer names its own
    /// line (`ReportSectionRenderer.journalLine`): keys in sorted order, as `JSONEncoder` wrote them.
    static func journalLine(type: String, item: [UInt8]) -> [UInt8] {
        var name = JSONOutput(capacity: 32)
        name.string(type)
        let member = name.bytes + Array(":".utf8)
        let kind = Array("\"type\":".utf8) + name.bytes
        // `type` first only when the member's name sorts after it.
        guard name.bytes.lexicographicallyPrecedes(Array("\"type\"".utf8)) else {
            return Array("{".utf8) + kind + Array(",".utf8) + member + item + Array("}".utf8)
        }
        return Array("{".utf8) + member + item + Array(",".utf8) + kind + Array("}".utf8)
    }
}

/// A section item's journal line.
struct SectionLine<Item: Encodable>: Encodable {
    var type = "section"
    let name: String
    let section: Item
}
