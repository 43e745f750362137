#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// Reads a JSONL file line by line in 1 MiB blocks, in time linear in the file's size; a final
/// line without a newline still counts (a journal cut by SIGKILL may end mid-line: such a line
/// fails to parse and is skipped by callers).
///
/// Invariant: no line longer than `maxLineBytes` is handed to `body` or held in memory: its
/// first bytes are dropped as soon as it passes the bound, the rest up to its newline is skipped
/// without being kept, and `onOversized` is told (once per such line).
public enum JournalReader {
    /// The longest line read (bytes, without its newline): far above any line sonde writes (a
    /// task with dozens of redirects and certificates is tens of KiB).
    public static let maxLineBytes = 32 << 20

    public static func forEachLine(path: String, maxLineBytes: Int = maxLineBytes, onOversized: () -> Void = {},
                                   _ body: (ArraySlice<UInt8>) throws(TaskError) -> Void) throws(TaskError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TaskError(code: .localIOError, message: "cannot read journal \(path): \(systemErrorMessage())")
        }
        defer { close(descriptor) }
        var pending: [UInt8] = []
        /// True while skipping the rest of a line that passed the bound.
        var skipping = false
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TaskError(code: .localIOError, message: "cannot read journal \(path): \(systemErrorMessage())")
            }
            if count == 0 { break }
            // Each byte of the block is looked at once: a newline search never rescans `pending`.
            var start = 0
            while start < count, let newline = Self.newline(in: block, from: start, to: count) {
                if skipping {
                    skipping = false
                } else if pending.count + (newline - start) > maxLineBytes {
                    onOversized()
                } else if pending.isEmpty {
                    if newline > start { try body(block[start..<newline]) }
                } else {
                    pending += block[start..<newline]
                    try body(pending[...])
                }
                pending.removeAll(keepingCapacity: pending.count <= 1 << 20)
                start = newline + 1
            }
            guard start < count, !skipping else { continue }
            if pending.count + (count - start) > maxLineBytes {
                onOversized()
                skipping = true
                pending = []
            } else {
                pending += block[start..<count]
            }
        }
        if !pending.isEmpty { try body(pending[...]) }
    }

    /// The index of the first newline in `block[start..<end]` (memchr: this is the reader's hot loop).
    private static func newline(in block: [UInt8], from start: Int, to end: Int) -> Int? {
        block.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base + start, 0x0A, end - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}
