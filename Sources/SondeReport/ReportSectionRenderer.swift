import SondeCore

/// How the report formats beside report.json show one `ReportSection` (`sonde stream`'s
/// `streams`): the check kind that fills the section renders it (its items are its own model),
/// and the report writer calls it. Registered through `ReportSectionRenderers`, which the run's
/// settings carry (`CheckKinds.sectionRenderers`). Renderers are pure: items in, text out; an
/// item they cannot read is left out.
public protocol ReportSectionRenderer: Sendable {
    /// The section's report.json key.
    var section: String { get }
    /// The section's HTML (`<section>…</section>`), every string from the items escaped (`htmlEscape`).
    func html(_ items: [[UInt8]]) -> String
    /// The section's Prometheus families (none: empty): the Prometheus file's lines and, in `sonde serve`,
    /// the check's series on /metrics. Labels must not change from one run to the next (no run id).
    func prometheus(_ items: [[UInt8]]) -> PrometheusFamilies
    /// junit.xml's test cases of the items (`JUnitSectionCase`), in the items' order.
    func junitCases(_ items: [[UInt8]]) -> [JUnitSectionCase]
}

/// One test case a report section adds to junit.xml (a stream of an sse check): in its check's
/// suite, or outside checks in a suite named after the section. Strings are plain text (the
/// writer escapes them).
public struct JUnitSectionCase: Sendable, Equatable {
    /// The suite check it belongs to; nil for a plain command's.
    public var check: String?
    public var classname: String
    public var name: String
    /// Why it failed; nil when it passed.
    public var failure: String?
    /// Its figures, for `system-out`.
    public var output: String

    public init(check: String?, classname: String, name: String, failure: String?, output: String) {
        self.check = check
        self.classname = classname
        self.name = name
        self.failure = failure
        self.output = output
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

    /// The HTML of every section that has a renderer, in the sections' order.
    func html(_ sections: [ReportSection]) -> String {
        sections.map { section in all.first { $0.section == section.name }?.html(section.items) ?? "" }.joined()
    }

    /// The junit.xml cases of every section that has a renderer, with the section's name.
    func junitCases(_ sections: [ReportSection]) -> [(section: String, cases: [JUnitSectionCase])] {
        sections.compactMap { section in
            all.first { $0.section == section.name }.map { (section.name, $0.junitCases(section.items)) }
        }
    }

    /// The Prometheus families of every section that has a renderer, in the sections' order.
    public func prometheus(_ sections: [ReportSection]) -> PrometheusFamilies {
        var families = PrometheusFamilies()
        for section in sections {
            if let renderer = all.first(where: { $0.section == section.name }) { families.add(renderer.prometheus(section.items)) }
        }
        return families
    }
}
