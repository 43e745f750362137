import Foundation
import Testing

/// Issue 41: every line sonde prints goes through its one writer (`StandardStreams`, one write
/// per line, nothing held in a stdio buffer), so that a pipe's reader sees it when it happens.
/// Swift's `print` and stdio writes go to a `FILE` that block-buffers a stdout that is not a
/// terminal: none may come back into the sources.
@Suite struct OutputWriterTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources").path

    @Test func noSourceWritesBehindTheWriter() throws {
        let forbidden = try NSRegularExpression(pattern: #"(?<![A-Za-z0-9_.])(?<!func )(print|debugPrint|fputs|puts|putchar|printf|fwrite)\(|Swift\.print\(|FileHandle\.standard(Output|Error)"#)
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: Self.sources)
        while let name = enumerator?.nextObject() as? String {
            guard name.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: Self.sources + "/" + name, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                let range = NSRange(code.startIndex..., in: code)
                if forbidden.firstMatch(in: code, range: range) != nil { found.append("\(name):\(number + 1): \(line)") }
            }
        }
        #expect(found.isEmpty, "written behind StandardStreams:\n\(found.joined(separator: "\n"))")
    }
}
