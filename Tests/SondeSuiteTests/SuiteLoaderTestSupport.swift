import Foundation
import SondeCLI
@testable import SondeSuite

/// Shared by the SuiteLoader tests: load text, get its problems, make files.
enum SuiteText {
    /// The problems of `text` (empty when it loads).
    static func problems(_ text: String, environment: [String: String] = [:], folder: String = "/nonexistent") -> [SuiteLoader.Problem] {
        do throws(SuiteLoader.Failure) {
            _ = try SuiteLoader.parse(text, file: "suite.yaml", folder: folder, kinds: .sonde, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    /// The loaded suite of `text`, or the failure's text.
    static func load(_ text: String, environment: [String: String] = [:], folder: String = "/nonexistent") -> Result<SuiteLoader.Loaded, SuiteLoader.Failure> {
        do throws(SuiteLoader.Failure) {
            return .success(try SuiteLoader.parse(text, file: "suite.yaml", folder: folder, kinds: .sonde, environment: environment))
        } catch {
            return .failure(error)
        }
    }

    /// A fresh directory of its own.
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "sonde-suite-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `contents` to `path` and returns `path`.
    @discardableResult
    static func write(_ contents: String, to path: String) -> String {
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8))
        return path
    }

    /// The package's root folder (this file is Tests/SondeRunTests/…).
    static let packageRoot: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
