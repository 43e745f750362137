import Foundation
import SondeCore
import SondeRun
import SondeSuite

/// `--print-suite`: the suite entry equivalent to a command line, on stdout, ready to paste under
/// `checks:` of a suite file (`sonde run`). The check's name comes from its URL's host. A secret
/// is not written into a file people keep: a header the redactor names (Authorization, cookies,
/// tokens) is printed as `${SONDE_<NAME>}`, to be set in the environment of `sonde run`; a URL
/// that holds a secret is printed as given, with a warning.
enum SuitePrinter {
    /// Prints the entry of `spec` with the command line's `--threshold`s as the check's own.
    static func print(_ spec: any CheckSpec, thresholds: [String], redactor: Redactor) throws {
        let (placeheld, written) = placeholdingSecrets(spec, redactor: redactor)
        var spec = placeheld
        if !thresholds.isEmpty { spec.thresholds = thresholds }
        StandardStreams.write(SuiteLoader.entryYAML(name: name(for: spec), spec: spec, written: written), to: .output)
    }

    /// `spec` with the values of secret headers replaced by `${SONDE_<NAME>}` (said on stderr), and
    /// those headers as they are to be written (references, not escaped).
    static func placeholdingSecrets(_ spec: any CheckSpec, redactor: Redactor) -> (any CheckSpec, [String: SuiteLoader.WrittenValue]) {
        guard redactor.isEnabled else { return (spec, [:]) }
        var placeholder = false
        // The headers as the file is to hold them: references as they are, the other lines with
        // their own `$` escaped as the writer escapes them.
        var written: [String] = []
        func placeheld(_ headers: [String]?) -> [String]? {
            headers?.map { line in
                guard let colon = line.firstIndex(of: ":"), case let name = line[..<colon].trimmingCharacters(in: .whitespaces),
                      redactor.isSecret(name: name) else {
                    written.append(line.replacingOccurrences(of: "$", with: "$$"))
                    return line
                }
                let variable = "SONDE_" + String(name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
                printError("--print-suite: the \(name) header is written as ${\(variable)}: set \(variable) to its value where the suite runs (--no-redact prints it as given)")
                placeholder = true
                written.append("\(name): ${\(variable)}")
                return "\(name): ${\(variable)}"
            }
        }
        var result = spec
        // Every kind with a `headers` key (an audit has none).
        if let headers = spec.textList(.headers) { result.setTextList(.headers, placeheld(headers)) }
        for url in spec.urls where redactor.redact(url: url) != url {
            printError("warning: --print-suite: \(redactor.redact(url: url)) holds a secret, printed as given: move it to ${VARIABLE} before you keep the file")
        }
        return (result, placeholder ? ["headers": .list(written)] : [:])
    }

    /// `<kind>-<host>` in the names a suite allows (`[a-z0-9_-]`, at most 64 characters).
    static func name(for spec: any CheckSpec) -> String {
        var host = spec.urls.first ?? ""
        if let scheme = host.range(of: "://") { host = String(host[scheme.upperBound...]) }
        host = String(host.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { host = String(host[host.index(after: host.startIndex)..<close]) }
        else if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        let cleaned = host.lowercased().map { ($0.isLetter && $0.isASCII) || ($0.isNumber && $0.isASCII) || $0 == "-" || $0 == "_" ? $0 : "-" }
        let name = "\(spec.kind.name)-" + String(cleaned)
        return String(name.prefix(64))
    }
}
