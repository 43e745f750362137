import Foundation
import SondeCore
import SondeOTLP
import SondeSuite
import Yams

/// The keys of serve's config beside its checks (`ServeConfigLoader`): read from the same walk as
/// a suite, with the same `${NAME}` expansion and the same `file:line:column: key: message` problems.
extension SuiteReader.Document {
    /// serve's config: a suite's keys among serve's own, each check with its schedule (`every:`,
    /// `run-timeout:`), read into `schedules` by check name; no check needed (an exporter for `/probe` alone).
    static func serve(_ schedules: ServeSchedules) -> SuiteReader.Document {
        SuiteReader.Document(topKeys: SuiteReader.serveTopKeys,
                             shape: "serve's config is a mapping of \(SuiteReader.serveTopKeys.joined(separator: ", "))",
                             needsChecks: false, defaultParallel: ServeConfig.defaultParallel, checkKeys: ScheduledCheck.keys) { reader, name, own, defaults, start in
            let schedule = reader.readSchedule(own: own, defaults: defaults, at: start)
            if let name, let schedule { schedules.byName[name] = schedule }
        }
    }
}

/// Each check's `every:` and `run-timeout:` (seconds; nil: the kind's default) by check name, as
/// `SuiteReader` reads serve's config. Owned by one load, on its thread.
final class ServeSchedules {
    var byName: [String: (every: Double, runTimeout: Double?)] = [:]
}

extension SuiteReader {
    static let serveTopKeys = ["listen", "vantage", "web-config", "allow", "modules", "parallel", "links", "defaults", "checks", "history", "keep", "otlp"]

    /// The whole config; nil when a problem keeps it from being built (reported). `schedules`:
    /// those the reader's document (`Document.serve`) keeps.
    mutating func readServe(_ root: Node, schedules: ServeSchedules) -> ServeConfig? {
        let loaded = read(root)
        guard case .mapping(let top) = root else { return nil }
        var byKey: [String: Entry] = [:]
        for pair in top {
            guard let key = pair.key.scalar?.string, Self.serveTopKeys.contains(key), byKey[key] == nil,
                  !Self.topKeys.contains(key) else { continue }
            byKey[key] = expanded(Entry(keyMark: pair.key.mark, raw: pair.value, value: pair.value, referencesEnvironment: false), key: key)
        }
        let listen = byKey["listen"].flatMap { entry -> ListenAddress? in
            guard let text = text(entry.value, key: "listen") else { return nil }
            guard let address = ListenAddress(parsing: text) else {
                report(entry.value.mark, key: "listen", "'\(text)' is not host:port (e.g. 127.0.0.1:9166, [::1]:9166; port 0 to 65535)")
                return nil
            }
            return address
        }
        let vantage = byKey["vantage"].flatMap { entry -> String? in
            guard let text = text(entry.value, key: "vantage") else { return nil }
            guard (1...64).contains(text.count), SpecRules.plainText(text, key: "vantage") == nil else {
                report(entry.value.mark, key: "vantage", "a label value of 1 to 64 characters, without spaces or control characters (got '\(text)')")
                return nil
            }
            return text
        }
        let allow = AllowList(patterns: byKey["allow"].map { readAllow($0) } ?? [])
        let modules = byKey["modules"].map { readModules($0) } ?? [:]
        let history = byKey["history"].flatMap { entry -> String? in
            guard let path = text(entry.value, key: "history"), !path.isEmpty else { return nil }
            return path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        }
        let keepDays = byKey["keep"].flatMap { readKeep($0) }
        let web = byKey["web-config"].flatMap { readWebConfig(at: $0) }
        let otlp = byKey["otlp"].flatMap { readOTLP($0) }
        guard let loaded else { return nil }
        var checks: [ScheduledCheck] = []
        for check in loaded.suite.checks {
            guard let schedule = schedules.byName[check.name] else { continue }
            checks.append(ScheduledCheck(check: check, every: schedule.every,
                                         runTimeout: schedule.runTimeout ?? check.spec.defaultRunTimeout))
        }
        return ServeConfig(listen: listen, vantage: vantage, allow: allow, modules: modules, parallel: loaded.suite.parallel,
                           checks: checks, history: history, keepDays: keepDays, web: web, otlp: otlp ?? environmentOTLP(), loaded: loaded)
    }

    /// A check's `every:` (required) and `run-timeout:`, its own or inherited.
    mutating func readSchedule(own: [String: Entry], defaults: [String: Entry], at start: Mark?) -> (every: Double, runTimeout: Double?)? {
        guard let everyEntry = own["every"] ?? defaults["every"] else {
            report(start, key: "every", "missing: every check of serve's config needs a schedule, e.g. every: 5m")
            return nil
        }
        let every = duration(everyEntry.value, key: "every", within: ScheduledCheck.everyRange)
        let runTimeout = (own["run-timeout"] ?? defaults["run-timeout"]).map {
            duration($0.value, key: "run-timeout", within: ScheduledCheck.runTimeoutRange)
        }
        guard let every else { return nil }
        if let runTimeout, runTimeout == nil { return nil }
        return (every, runTimeout ?? nil)
    }

    // MARK: allow, keep

    mutating func readAllow(_ entry: Entry) -> [AllowList.Pattern] {
        guard case .sequence(let items) = entry.value else {
            report(entry.value.mark, key: "allow", "expected a list of URL patterns such as https://api.example.com/* (got \(Self.describe(entry.raw)))")
            return []
        }
        var patterns: [AllowList.Pattern] = []
        for item in items.prefix(10_000) {
            guard let text = text(item, key: "allow") else { continue }
            switch AllowList.Pattern.parse(text) {
            case .success(let pattern): patterns.append(pattern)
            case .failure(let problem): report(item.mark, key: "allow", problem.message)
            }
        }
        if items.count > 10_000 { report(entry.value.mark, key: "allow", "at most 10000 patterns (got \(items.count))") }
        return patterns
    }

    mutating func readKeep(_ entry: Entry) -> Int? {
        guard case .mapping(let mapping) = entry.value else {
            report(entry.value.mark, key: "keep", "expected a mapping such as {days: 30} (got \(Self.describe(entry.raw)))")
            return nil
        }
        var days: Int?
        for (key, value) in mapping {
            guard key.scalar?.string == "days" else {
                report(key.mark, key: "keep", "unknown key \(Self.describe(key)) (allowed: days)")
                continue
            }
            days = integer(value, key: "keep", within: 1...ServeConfig.maxKeepDays)
        }
        return days
    }

    // MARK: otlp

    /// `otlp: {endpoint, protocol, headers: {name: value}, timeout, insecure, cacert}`, resolved
    /// with the `OTEL_EXPORTER_OTLP_*` variables (`OTLPSettings.resolve`).
    mutating func readOTLP(_ entry: Entry) -> OTLPSettings? {
        guard let fields = fields(of: entry.value, key: "otlp", expected: "a mapping such as {endpoint: http://127.0.0.1:4318}") else { return nil }
        var given = OTLPSettings.Given()
        for (keyNode, field, value, here) in fields {
            switch field {
            case "endpoint": given.endpoint = text(value, key: here)
            case "protocol": given.protocolName = text(value, key: here)
            case "timeout": given.timeout = duration(value, key: here, within: OTLPSettings.timeoutRange)
            case "insecure": given.insecure = boolean(value, key: here) ?? false
            case "cacert":
                if let path = text(value, key: here) { given.caCertPath = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path) }
            case "headers":
                guard case .mapping(let headers) = value else {
                    report(value.mark, key: here, "expected a mapping of header names to values (got \(Self.describe(value)))")
                    continue
                }
                for (nameNode, valueNode) in headers.prefix(256) {
                    guard let name = nameNode.scalar?.string, let headerValue = text(valueNode, key: here) else { continue }
                    guard !name.isEmpty, !name.contains(":"), !name.contains(" "), !SpecRules.hasControlCharacters(name),
                          !SpecRules.hasControlCharacters(headerValue) else {
                        report(nameNode.mark, key: here, "'\(name)' is not a header name and value without control characters")
                        continue
                    }
                    given.headers.append(HeaderField(name: name, value: headerValue))
                }
            default:
                report(keyNode.mark, key: "otlp", "unknown key \(Self.describe(keyNode)) (allowed: endpoint, protocol, headers, timeout, insecure, cacert)")
            }
        }
        guard given.endpoint != nil else {
            report(entry.value.mark, key: "otlp.endpoint", "missing: the collector's base URL, e.g. http://127.0.0.1:4318")
            return nil
        }
        switch OTLPSettings.resolve(given, environment: ProcessInfo.processInfo.environment) {
        case .success(let settings): return settings
        case .failure(let problem):
            report(entry.value.mark, key: "otlp", problem.description)
            return nil
        }
    }

    /// Export settings from the `OTEL_EXPORTER_OTLP_*` variables alone (no `otlp:`); a problem is reported.
    mutating func environmentOTLP() -> OTLPSettings? {
        switch OTLPSettings.resolve(OTLPSettings.Given(), environment: ProcessInfo.processInfo.environment) {
        case .success(let settings): return settings
        case .failure(let problem):
            report(nil, key: "otlp", problem.description)
            return nil
        }
    }

    // MARK: Scalars

    /// The text of a scalar; nil (reported) for a list or mapping.
    mutating func text(_ node: Node, key: String) -> String? {
        guard case .scalar(let scalar) = node else {
            report(node.mark, key: key, "expected text (got \(Self.describe(node)))")
            return nil
        }
        return scalar.string
    }

    mutating func integer(_ node: Node, key: String, within range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, let number = Int.construct(from: scalar) else {
            report(node.mark, key: key, "expected a whole number from \(range.lowerBound) to \(range.upperBound) (got \(Self.describe(node)))")
            return nil
        }
        guard range.contains(number) else {
            report(node.mark, key: key, "must be between \(range.lowerBound) and \(range.upperBound) (got \(number))")
            return nil
        }
        return number
    }

    mutating func boolean(_ node: Node, key: String) -> Bool? {
        guard case .scalar(let scalar) = node, let value = Bool.construct(from: scalar) else {
            report(node.mark, key: key, "expected true or false (got \(Self.describe(node)))")
            return nil
        }
        return value
    }

    /// Seconds, from sonde's one duration parser; within `range`.
    mutating func duration(_ node: Node, key: String, within range: ClosedRange<Double>) -> Double? {
        guard case .scalar(let scalar) = node, let value = DurationValue(text: scalar.string) else {
            report(node.mark, key: key, "expected \(Quantity.durationHint) (got \(Self.describe(node)))")
            return nil
        }
        if let problem = SpecRules.duration(value, key: key, within: range) {
            report(node.mark, key: key, problem.message)
            return nil
        }
        return value.seconds
    }

    /// A list of texts (a single text counts as a list of one).
    mutating func texts(_ node: Node, key: String) -> [String]? {
        switch node {
        case .scalar(let scalar): return [scalar.string]
        case .sequence(let items):
            var texts: [String] = []
            for item in items { if let text = text(item, key: key) { texts.append(text) } }
            return texts
        default:
            report(node.mark, key: key, "expected a list (got \(Self.describe(node)))")
            return nil
        }
    }
}
