import Foundation
import SondeCore

/// A top-level array of report.json that a check kind fills with its own items (`sonde stream`'s
/// `streams`), journalled as `{"name":…,"section":<item>,"type":"section"}` lines and copied into
/// report.json as they were journalled, in order. The kind owns the items' model and schema.
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
                                        "resumeVerdicts", "audits", "captures", "thresholds", "baseline"]

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

    /// Adds `item` to the section `name` in `sections`, keeping their first-seen order.
    static func add(_ item: [UInt8], to name: String, in sections: inout [ReportSection]) {
        if let index = sections.firstIndex(where: { $0.name == name }) {
            sections[index].items.append(item)
        } else {
            sections.append(ReportSection(name: name, items: [item]))
        }
    }
}

/// A section item's journal line.
struct SectionLine<Item: Encodable>: Encodable {
    var type = "section"
    let name: String
    let section: Item
}
