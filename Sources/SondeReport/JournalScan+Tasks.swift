import SondeCore

extension JournalScan {
    /// Reads a finished run folder once, handing each task to `body` as it is decoded (none is
    /// kept), and returns the run as the scan saw it. For exporters that stream a run's tasks
    /// elsewhere (OTLP); nothing is written.
    public static func forEachTask(folder: RunFolder, soakParts: [any SoakPart] = [], _ body: (ProbeTask) -> Void) throws(TaskError) -> Result {
        try requireJournal(folder)
        return try scan(folder: folder, soakParts: soakParts, onRunLine: { _ in }, onTask: { (task: ProbeTask, _: ArraySlice<UInt8>) throws(TaskError) in body(task) })
    }
}
