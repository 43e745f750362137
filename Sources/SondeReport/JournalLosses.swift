/// What one pass over a journal could not read (`JournalScan`): lines that did not decode or
/// whose type sonde does not know, tasks whose numbers are out of range, lines past
/// `JournalReader.maxLineBytes`. A last line cut mid-write (no newline after it: a run killed while
/// it wrote) is not a loss of the journal's: a killed run's journal ends so, and its report says
/// the run was interrupted.
///
/// Line numbers count from 1, every line of the file (an oversized one included).
public struct JournalLosses: Sendable, Equatable {
    /// Lines that did not decode, or are not a kind of line sonde writes.
    public var unreadable = 0
    /// Task lines skipped because a number is out of the range a report can hold.
    public var outOfRange = 0
    /// Lines longer than `JournalReader.maxLineBytes`, skipped unread.
    public var oversized = 0
    /// The first lost lines' numbers (at most `shownLines`), in file order.
    public var lines: [Int] = []
    /// The journal's last line was cut (no newline after it) and did not decode: not counted above.
    public var cutLastLine = false

    static let shownLines = 5

    public init() {}

    /// Whether anything of the journal was lost (a cut last line aside).
    public var isEmpty: Bool { unreadable == 0 && outOfRange == 0 && oversized == 0 }

    /// Records line `number` as lost.
    mutating func lose(line number: Int) {
        if lines.count < Self.shownLines { lines.append(number) }
    }

    /// What was lost, in words: "3 unreadable lines, 1 task with numbers out of range (lines 4, 9, 12, 15)".
    public var description: String {
        var parts: [String] = []
        if unreadable > 0 { parts.append("\(unreadable) unreadable line\(unreadable == 1 ? "" : "s")") }
        if outOfRange > 0 { parts.append("\(outOfRange) task\(outOfRange == 1 ? "" : "s") with numbers out of range") }
        if oversized > 0 { parts.append("\(oversized) line\(oversized == 1 ? "" : "s") longer than \(JournalReader.maxLineBytes >> 20) MiB") }
        let total = unreadable + outOfRange + oversized
        let place = lines.isEmpty ? "" : " (line\(lines.count == 1 ? "" : "s") \(lines.map(String.init).joined(separator: ", "))"
            + (total > lines.count ? ", …" : "") + ")"
        return parts.joined(separator: ", ") + place
    }
}
