import CYaml
import Foundation

/// The bounds on a YAML file that comes from outside (suites, serve's config, web config,
/// `--config`; `YAMLDocument` and `SuiteLoader` apply them), so a hostile or mistaken file
/// cannot exhaust memory or time:
///
/// - the file is at most `maxBytes` (read with a bounded read, never more);
/// - before Yams builds anything, one pass over libyaml's events counts the nodes the aliases
///   add once expanded (an alias stands for the whole subtree it names, less the alias itself),
///   and more than `maxNodes` so added is an error: a "billion laughs" file is refused in
///   microseconds. The nodes written out in the file are bounded by `maxBytes` alone (a large
///   config without aliases is judged by its own rules, such as a suite's most checks);
/// - nesting deeper than `maxDepth` is an error.
///
/// Errors are `Problem`s whose text names the file and says the bound in words.
public enum BoundedYAML {
    /// The largest file read (bytes).
    public static let maxBytes = 1 << 20
    /// The most nodes (scalars, sequences, mappings) a document's aliases may add once expanded.
    public static let maxNodes = 100_000
    /// The deepest nesting of sequences and mappings.
    public static let maxDepth = 64

    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// At most `maxBytes` of the regular file at `path` (one byte more means too large).
    public static func read(path: String, what: String) throws(Problem) -> [UInt8] {
        // Non-blocking: opening a FIFO must not wait for a writer (fstat then refuses it).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw Problem(description: "cannot read \(what): no such file, or not readable") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw Problem(description: "\(what) is not a regular file")
        }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= maxBytes {
            let count = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Problem(description: "cannot read \(what): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += block[0..<count]
        }
        guard bytes.count <= maxBytes else {
            throw Problem(description: "\(what) is larger than \(maxBytes / 1024) KiB, the most sonde reads")
        }
        return bytes
    }

    /// One pass over the parser's events: the nodes the aliases add (each alias its anchor's
    /// expanded subtree less one; subtree counts saturate far above `maxNodes`) and the depth,
    /// checked as they grow. Syntax errors are left to Yams, which reports them with a position.
    public static func checkExpansion(_ text: String, what: String) throws(Problem) {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Problem(description: "cannot start the YAML parser") }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        // Nodes under each anchor, expanded; the open collections' expanded counts so far (with their anchors).
        var anchors: [String: Int] = [:]
        var open: [(anchor: String?, nodes: Int)] = []
        // What the aliases added so far (saturating just above `maxNodes`).
        var added = 0
        let saturation = 1 << 40
        func add(_ nodes: Int) {
            guard !open.isEmpty else { return }
            open[open.count - 1].nodes = min(open[open.count - 1].nodes + nodes, saturation)
        }
        func anchor(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
        let tooMany = Problem(description: "\(what) stands for more than \(maxNodes) further YAML nodes once its aliases "
            + "(*name) are expanded: refused (an alias bomb)")
        try bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(Problem) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else { return }  // Yams says what is wrong
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return
                case YAML_SCALAR_EVENT:
                    if let name = anchor(event.data.scalar.anchor) { anchors[name] = 1 }
                    add(1)
                case YAML_ALIAS_EVENT:
                    let nodes = anchor(event.data.alias.anchor).flatMap { anchors[$0] } ?? 1
                    added = min(added + max(0, nodes - 1), maxNodes + 1)
                    if added > maxNodes { throw tooMany }
                    add(nodes)
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let name = event.type == YAML_SEQUENCE_START_EVENT
                        ? anchor(event.data.sequence_start.anchor) : anchor(event.data.mapping_start.anchor)
                    open.append((name, 1))
                    if open.count > maxDepth {
                        throw Problem(description: "\(what) nests sequences and mappings deeper than \(maxDepth) levels: refused")
                    }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    guard let closed = open.popLast() else { return }
                    if let name = closed.anchor { anchors[name] = closed.nodes }
                    add(closed.nodes)
                default:
                    break
                }
            }
        }
    }
}
