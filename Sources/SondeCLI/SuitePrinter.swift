import Foundation
import SondeRun

/// `--print-suite`: the suite entry equivalent to a command line, on stdout, ready to paste under
/// `checks:` of a suite file (`sonde run`). The check's name comes from its URL's host.
enum SuitePrinter {
    /// Prints the entry of `spec` with the command line's `--threshold`s as the check's own.
    static func print(_ spec: SuiteCheck.Spec, thresholds: [String]) throws {
        var spec = spec
        if !thresholds.isEmpty {
            switch spec {
            case .probe(var probe): probe.thresholds = thresholds; spec = .probe(probe)
            case .soak(var soak): soak.thresholds = thresholds; spec = .soak(soak)
            case .resume(var resume): resume.thresholds = thresholds; spec = .resume(resume)
            }
        }
        Swift.print(SuiteLoader.entryYAML(name: name(for: spec), spec: spec), terminator: "")
    }

    /// `<kind>-<host>` in the names a suite allows (`[a-z0-9_-]`, at most 64 characters).
    static func name(for spec: SuiteCheck.Spec) -> String {
        let url: String
        switch spec {
        case .probe(let probe): url = probe.urls.first ?? ""
        case .soak(let soak): url = soak.url
        case .resume(let resume): url = resume.url
        }
        var host = url
        if let scheme = host.range(of: "://") { host = String(host[scheme.upperBound...]) }
        host = String(host.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { host = String(host[host.index(after: host.startIndex)..<close]) }
        else if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        let cleaned = host.lowercased().map { ($0.isLetter && $0.isASCII) || ($0.isNumber && $0.isASCII) || $0 == "-" || $0 == "_" ? $0 : "-" }
        let name = "\(spec.kind.rawValue)-" + String(cleaned)
        return String(name.prefix(64))
    }
}
