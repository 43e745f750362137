import Foundation
import SondeCore
import SondeReport

/// report.json's `audits` (`AuditResult` items, one per audited URL) in every other output: the
/// HTML among the run's or the check's figures (`AuditSection`), a JUnit case per finding
/// (`AuditCases`, outside checks in the suite `audit`), the `sonde_audit_*` families among the
/// run's or the check's series (`AuditMetrics`), the check's figures and verdict (an item that did
/// not pass fails its check and the run), and `sonde report`'s terminal view (`AuditTerminalView`).
///
/// The key is in every report.json, `[]` without audits (`alwaysWritten`), and each item is
/// journalled as `{"audit":…,"type":"audit"}`, the line sonde wrote before the audit was a
/// section: journals of either age read alike. An item is read back as an `AuditResult` and
/// written again with the report's encoder; one that does not read is skipped.
public struct AuditSectionRenderer: ReportSectionRenderer {
    public static let name = "audits"

    public let section = AuditSectionRenderer.name
    public var alwaysWritten: Bool { true }
    public var junitSuite: String { "audit" }
    public var journalLine: String? { "audit" }

    public init() {}

    /// The items as `AuditResult`s; one that does not decode is left out.
    static func results(_ items: [[UInt8]]) -> [AuditResult] {
        let decoder = JSONDecoder()
        return items.compactMap { try? decoder.decode(AuditResult.self, from: Data($0)) }
    }

    public func reportItem(_ journalled: ArraySlice<UInt8>) -> [UInt8]? {
        guard let result = try? JSONDecoder().decode(AuditResult.self, from: Data(journalled)),
              let json = try? ReportJSONWriter.makeEncoder().encode(result) else { return nil }
        return Array(json)
    }

    /// None after the body: the audits show among the run's or their check's figures (`figuresHTML`).
    public func html(_ items: [[UInt8]]) -> String { "" }

    /// None of the section's own: the series go among the run's or the check's (`figureFamilies`).
    public func prometheus(_ items: [[UInt8]]) -> PrometheusFamilies { PrometheusFamilies() }

    public func junitCases(_ items: [[UInt8]]) -> [JUnitSectionCase] { AuditCases.cases(Self.results(items)) }

    /// An audit fails when a finding reaches its `failOn` or the URL could not be audited (`passed`, as written).
    public func failed(_ item: [UInt8]) -> Bool {
        (try? JSONDecoder().decode(AuditResult.self, from: Data(item)))?.passed == false
    }

    /// "1/2 audits passed, 1 fail, 3 warn".
    public func checkFigures(_ items: [[UInt8]]) -> [String] {
        let own = Self.results(items)
        guard !own.isEmpty else { return [] }
        let findings = own.flatMap(\.target.findings)
        return ["\(own.filter(\.passed).count)/\(own.count) audits passed, "
            + "\(findings.filter { $0.severity == .fail }.count) fail, \(findings.filter { $0.severity == .warn }.count) warn"]
    }

    public func figuresHTML(_ items: [[UInt8]], check: String?) -> String {
        AuditSection.render(Self.results(items), anchor: check ?? "")
    }

    public func figureFamilies(_ items: [[UInt8]], labels: [(String, String)]) -> PrometheusFamilies {
        let audits = Self.results(items)
        var families = PrometheusFamilies()
        guard !audits.isEmpty else { return families }
        AuditMetrics.add(audits) { name, type, help, samples in
            families.add(name, type, help, samples.map { (labels + $0.labels, $0.value) })
        }
        return families
    }

    public func terminalText(_ items: [[UInt8]]) -> [String] { Self.results(items).map(AuditTerminalView.render) }
}
