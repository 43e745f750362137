/// How a run shows its progress while it works (`--progress`, `RunSettings.progress`).
public enum ProgressMode: String, CaseIterable, Sendable {
    /// The terminal view (redrawn in place on standard error) when standard error is a terminal,
    /// plain status lines otherwise.
    case auto
    /// Plain status lines, on a terminal or not.
    case plain
    /// No progress: the work's own lines (tasks, trials, URLs) and the end only.
    case off
}
