import SondeCore

/// The bounded set of tasks the HTML report draws: the first `limit` tasks, plus later failures
/// up to another `limit`, so a long run's HTML stays small and still shows what went wrong.
public struct TaskSampler: Sendable {
    public static let limit = 300
    public private(set) var tasks: [ProbeTask] = []
    private var laterFailures = 0

    public init() {}

    public mutating func add(_ task: ProbeTask) {
        if tasks.count < Self.limit {
            tasks.append(task)
        } else if task.error != nil && laterFailures < Self.limit {
            tasks.append(task)
            laterFailures += 1
        }
    }
}
