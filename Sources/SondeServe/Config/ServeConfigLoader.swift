import Foundation
import SondeSuite
import Yams

/// Reads `sonde serve`'s config (`ServeConfig`), validated whole with the suite's rules and
/// problems (`SuiteLoader`): the same bounds against YAML bombs, the same `${NAME}` expansion, every
/// problem as `FILE:LINE:COLUMN: KEY: message`. Its checks are a suite's checks with `every:` (and
/// optionally `run-timeout:`); the rest is serve's own (`SuiteReader+Serve`). An empty file is refused.
public enum ServeConfigLoader {
    public static func load(path: String, kinds: CheckKinds, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SuiteLoader.Failure) -> ServeConfig {
        let text = try SuiteLoader.readText(path: path, what: "the config file")
        let folder = (path as NSString).deletingLastPathComponent
        return try parse(text, file: path, folder: folder.isEmpty ? "." : folder, kinds: kinds, environment: environment)
    }

    public static func parse(_ text: String, file: String, folder: String, kinds: CheckKinds, environment: [String: String]) throws(SuiteLoader.Failure) -> ServeConfig {
        let root = try SuiteLoader.compose(text, file: file, what: "the config file")
        // An empty file is refused, as `sonde run` refuses an empty suite: a reload of a file
        // truncated mid-save would otherwise drop every check, module and allow pattern.
        if root == nil || root?.mapping?.isEmpty == true {
            throw SuiteLoader.Failure(problems: [SuiteLoader.Problem(file: file, line: 0, column: 0, key: nil,
                message: "the config file is empty (a file truncated while it was saved?): it needs at least one of checks, modules or allow")])
        }
        guard let root else { throw SuiteLoader.Failure(problems: []) }
        let schedules = ServeSchedules()
        var reader = SuiteReader(file: file, folder: folder, environment: environment, document: .serve(schedules), kinds: kinds)
        let config = reader.readServe(root, schedules: schedules)
        guard reader.problems.isEmpty, let config else { throw SuiteLoader.Failure(problems: reader.sortedProblems()) }
        // A file truncated after its first lines (`listen:` alone) is as empty as an empty one.
        if config.checks.isEmpty && config.modules.isEmpty && config.allow.patterns.isEmpty {
            throw SuiteLoader.Failure(problems: [SuiteLoader.Problem(file: file, line: 0, column: 0, key: nil,
                message: "the config has no checks, modules or allow patterns (a file truncated while it was saved?): serve would do nothing")])
        }
        return config
    }
}
