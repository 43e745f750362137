import Foundation
import Yams

/// The one way sonde reads a YAML file from outside into a typed value: a bounded read
/// (`BoundedYAML.read`), the alias and depth bounds, Yams' composer (`SuiteLoader.compose`), then
/// the value's own `Decodable`. Suites and serve's config go on to `SuiteReader`, which walks
/// the composed document to place each problem; a small file of settings (`--config`) decodes
/// at once with this.
///
/// Every problem's message names the file as `what` does; where the YAML itself is at fault the
/// problem also has the line and column.
public enum YAMLDocument {
    /// The value of type `T` in the YAML file at `path`, or nil for an empty file. A
    /// `DecodingError`'s words go into the problem; any other error thrown by `T.init(from:)`
    /// is described as it is.
    public static func read<T: Decodable>(_ type: T.Type, path: String, what: String) throws(SuiteLoader.Failure) -> T? {
        func failure(line: Int = 0, column: Int = 0, _ message: String) -> SuiteLoader.Failure {
            SuiteLoader.Failure(problems: [SuiteLoader.Problem(file: path, line: line, column: column, key: nil, message: message)])
        }
        let text = try SuiteLoader.readText(path: path, what: what)
        guard let root = try SuiteLoader.compose(text, file: path, what: what) else { return nil }
        do {
            return try YAMLDecoder().decode(T.self, from: root)
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
                let key = context.codingPath.map(\.stringValue).joined(separator: ".")
                throw failure("\(what): " + (key.isEmpty ? "" : "'\(key)': ") + context.debugDescription)
            @unknown default:
                throw failure("\(what): \(error)")
            }
        } catch {
            throw failure("\(what): \(error)")
        }
    }
}
