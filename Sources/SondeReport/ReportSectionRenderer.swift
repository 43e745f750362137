import SondeCore

/// How the report formats beside report.json show one `ReportSection` (`sonde stream`'s
/// `streams`, `sonde audit`'s `audits`): the check kind that fills the section renders it (its
/// items are its own model), and the report writer calls it. Registered through
/// `ReportSectionRenderers`, which the run's settings carry (`CheckKinds.sectionRenderers`).
/// Renderers are pure: items in, text out; an item they cannot read is left out.
///
/// Beside the section's own places (`html`, `prometheus`, `junitCases`), a kind whose items pass
/// or fail its check shows them among the run's or its check's figures: `failed`, `checkFigures`,
/// `figuresHTML`, `figureFamilies`, `terminalText`. Every one of those has a default (nothing), so
/// a kind implements only what it shows. Items that name a suite check carry it as `check` (a
/// string member of the item's object, `ReportSection.check(of:)`); those hooks get a check's own items.
public protocol ReportSectionRenderer: Sendable {
    /// The section's report.json key.
    var section: String { get }
    /// The section's HTML (`<section>…</section>`) after the run's body, every string from the items escaped (`htmlEscape`).
    func html(_ items: [[UInt8]]) -> String
    /// The section's Prometheus families (none: empty): the Prometheus file's lines and, in `sonde serve`,
    /// the check's series on /metrics. Labels must not change from one run to the next (no run id).
    func prometheus(_ items: [[UInt8]]) -> PrometheusFamilies
    /// junit.xml's test cases of the items (`JUnitSectionCase`), in the items' order.
    func junitCases(_ items: [[UInt8]]) -> [JUnitSectionCase]

    /// Whether report.json holds the section's key even without items (`[]`), before every other
    /// section: a key every report had before its kind moved out of SondeReport. False by default.
    var alwaysWritten: Bool { get }
    /// The junit.xml suite of the items recorded outside checks; the section's name by default.
    var junitSuite: String { get }
    /// The journal line the items are written as: nil (the default) for the section line
    /// `{"name":…,"section":…,"type":"section"}`; a name `T` for `{"T":<item>,"type":"T"}`, the line a
    /// kind wrote before it was a section (`audit`), so that old and new journals read alike.
    var journalLine: String? { get }
    /// The item as report.json holds it, from its journalled JSON; nil when it does not read (the
    /// line is skipped and counted as unreadable). By default an object is kept as it is.
    func reportItem(_ journalled: ArraySlice<UInt8>) -> [UInt8]?
    /// Whether the item fails its check and the run (`RunJudgement`, `CheckBuilder`); false by default.
    func failed(_ item: [UInt8]) -> Bool
    /// A check's key figures from its own items, for the terminal's line per check, the HTML's
    /// verdict table and the Markdown summary (`CheckFigures`); none by default.
    func checkFigures(_ items: [[UInt8]]) -> [String]
    /// The items' HTML among the figures of a run without checks (`check` nil) or inside a check's
    /// section (its own items; `check` its name), every string escaped; "" by default.
    func figuresHTML(_ items: [[UInt8]], check: String?) -> String
    /// The items' Prometheus families among the run's figures or a check's (its own items), every
    /// sample's labels after `labels` (the check's and link's); none by default.
    func figureFamilies(_ items: [[UInt8]], labels: [(String, String)]) -> PrometheusFamilies
    /// The items on the terminal of `sonde report` (a run rebuilt from its journal), one string
    /// per item (lines joined by newlines, already sanitised); none by default.
    func terminalText(_ items: [[UInt8]]) -> [String]
}

extension ReportSectionRenderer {
    public var alwaysWritten: Bool { false }
    public var junitSuite: String { section }
    public var journalLine: String? { nil }
    public func reportItem(_ journalled: ArraySlice<UInt8>) -> [UInt8]? { journalled.first == UInt8(ascii: "{") ? Array(journalled) : nil }
    public func failed(_ item: [UInt8]) -> Bool { false }
    public func checkFigures(_ items: [[UInt8]]) -> [String] { [] }
    public func figuresHTML(_ items: [[UInt8]], check: String?) -> String { "" }
    public func figureFamilies(_ items: [[UInt8]], labels: [(String, String)]) -> PrometheusFamilies { PrometheusFamilies() }
    public func terminalText(_ items: [[UInt8]]) -> [String] { [] }
}

/// One test case a report section adds to junit.xml (a stream of an sse check, a finding of an
/// audit): in its check's suite, or outside checks in the section's suite (`junitSuite`).
/// Strings are plain text (the writer escapes them). Written as
/// `<testcase classname name time><failure message type>detail</failure><system-out>output</system-out></testcase>`,
/// the failure only when there is one, `system-out` only when `output` is not nil.
public struct JUnitSectionCase: Sendable, Equatable {
    /// The suite check it belongs to; nil for a plain command's.
    public var check: String?
    public var classname: String
    public var name: String
    /// Why it failed (the failure's message); nil when it passed.
    public var failure: String?
    /// The failure's `type`; nil for `classname`.
    public var failureType: String?
    /// The failure's text; nil for `failure` itself.
    public var failureDetail: String?
    /// Its figures, for `system-out`; nil for none.
    public var output: String?
    /// Its duration in seconds (`time`); nil writes `0`.
    public var seconds: Double?

    public init(check: String?, classname: String, name: String, failure: String?, output: String?,
                failureType: String? = nil, failureDetail: String? = nil, seconds: Double? = nil) {
        self.check = check
        self.classname = classname
        self.name = name
        self.failure = failure
        self.output = output
        self.failureType = failureType
        self.failureDetail = failureDetail
        self.seconds = seconds
    }
}

/// The renderers a run's report files use, by section name, and the renderers of the extensions'
/// parts of a soak (`soakParts`, in the extensions' order). A plain value: the CLI builds it from
/// the registered kinds and extensions; an empty one renders report.json's sections only.
public struct ReportSectionRenderers: Sendable {
    public let all: [any ReportSectionRenderer]
    public let soakParts: [any SoakPartRenderer]

    public init(_ all: [any ReportSectionRenderer] = [], soakParts: [any SoakPartRenderer] = []) {
        self.all = all
        self.soakParts = soakParts
    }

    /// The renderer of the section `name`, nil when none is registered.
    func renderer(of name: String) -> (any ReportSectionRenderer)? { all.first { $0.section == name } }

    /// The section each journal line type other than `section` names (`ReportSectionRenderer.journalLine`).
    var journalLines: [String: any ReportSectionRenderer] {
        var lines: [String: any ReportSectionRenderer] = [:]
        for renderer in all { if let line = renderer.journalLine, lines[line] == nil { lines[line] = renderer } }
        return lines
    }

    /// A journalled item of the section `name` as report.json holds it: its renderer's reading
    /// (`reportItem`), or the item as it is without a renderer; nil when unreadable.
    func reportItem(_ journalled: ArraySlice<UInt8>, section name: String) -> [UInt8]? {
        guard let renderer = renderer(of: name) else { return Array(journalled) }
        return renderer.reportItem(journalled)
    }

    /// `sections` in report.json's order: first each `alwaysWritten` section in the renderers'
    /// order (empty when nothing was recorded), then the others in the order first recorded.
    public func arranged(_ sections: [ReportSection]) -> [ReportSection] {
        let fixed = all.filter(\.alwaysWritten).map(\.section)
        return fixed.map { name in sections.first { $0.name == name } ?? ReportSection(name: name, items: []) }
            + sections.filter { !fixed.contains($0.name) }
    }

    /// The HTML of every section that has a renderer, in the sections' order.
    func html(_ sections: [ReportSection]) -> String {
        sections.map { section in renderer(of: section.name)?.html(section.items) ?? "" }.joined()
    }

    /// The junit.xml cases of every section that has items and a renderer, with the suite they go
    /// in outside checks (written even when the items give no case).
    func junitCases(_ sections: [ReportSection]) -> [(section: String, cases: [JUnitSectionCase])] {
        sections.compactMap { section in
            guard !section.items.isEmpty else { return nil }
            return renderer(of: section.name).map { ($0.junitSuite, $0.junitCases(section.items)) }
        }
    }

    /// The Prometheus families of every section that has a renderer, in the sections' order.
    public func prometheus(_ sections: [ReportSection]) -> PrometheusFamilies {
        var families = PrometheusFamilies()
        for section in sections {
            if let renderer = renderer(of: section.name) { families.add(renderer.prometheus(section.items)) }
        }
        return families
    }

    /// Whether any item of `sections` fails (`ReportSectionRenderer.failed`): every item, or with
    /// `check` that check's own.
    func anyFailed(_ sections: [ReportSection], check: String? = nil) -> Bool {
        sections.contains { section in
            guard let renderer = renderer(of: section.name) else { return false }
            return section.items(of: check).contains { renderer.failed($0) }
        }
    }

    /// A check's key figures from its own items (`ReportSectionRenderer.checkFigures`), in the sections' order.
    func checkFigures(_ sections: [ReportSection], check: String) -> [String] {
        sections.flatMap { section -> [String] in
            guard let renderer = renderer(of: section.name) else { return [] }
            let own = section.items(of: check)
            return own.isEmpty ? [] : renderer.checkFigures(own)
        }
    }

    /// The HTML among a run's figures (`check` nil: every item) or a check's (its own items).
    func figuresHTML(_ sections: [ReportSection], check: String?) -> String {
        sections.map { section in
            guard let renderer = renderer(of: section.name) else { return "" }
            let items = section.items(of: check)
            return items.isEmpty ? "" : renderer.figuresHTML(items, check: check)
        }.joined()
    }

    /// The Prometheus families among a run's figures (`check` nil: every item) or a check's (its own items).
    func figureFamilies(_ sections: [ReportSection], check: String?, labels: [(String, String)]) -> PrometheusFamilies {
        var families = PrometheusFamilies()
        for section in sections {
            guard let renderer = renderer(of: section.name) else { continue }
            let items = section.items(of: check)
            if !items.isEmpty { families.add(renderer.figureFamilies(items, labels: labels)) }
        }
        return families
    }

    /// What `sonde report` prints of the sections, one string per item (`ReportSectionRenderer.terminalText`).
    public func terminalText(_ sections: [ReportSection]) -> [String] {
        sections.flatMap { section in renderer(of: section.name).map { $0.terminalText(section.items) } ?? [] }
    }
}
