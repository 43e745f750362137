import Dispatch
import SondeCore

/// `/`'s history page, rendered at most once per `generation` (a count `ServeState` raises with
/// every run recorded and every reload) on a thread of its own, never on Swift's cooperative pool:
/// a 100,000-run history takes seconds to draw, and `/-/healthy` must not wait for it. Requests
/// that arrive while the page renders wait for that rendering instead of starting their own.
/// Threading: an actor.
actor HistoryPageCache {
    private var cached: (generation: Int, page: Result<String, TaskError>)?
    private var rendering: Task<Result<String, TaskError>, Never>?
    private let lane = BlockingLane(label: "sonde.serve.history-page", limit: 1, maxWaiting: 4)

    /// The page of `generation`: the cached one, the one being rendered, or a new rendering of `render`.
    func page(generation: Int, render: @escaping @Sendable () throws(TaskError) -> String) async -> Result<String, TaskError> {
        if let cached, cached.generation == generation { return cached.page }
        // One rendering at a time: a request for a newer generation takes the page under way
        // (at most one run old); the next request draws its own.
        if let rendering { return await rendering.value }
        let lane = self.lane
        let task = Task<Result<String, TaskError>, Never> {
            do {
                return try await lane.run { () -> Result<String, TaskError> in
                    do throws(TaskError) { return .success(try render()) } catch { return .failure(error) }
                }
            } catch {
                return .failure(TaskError(code: .localIOError, message: "the page is being drawn; try again"))
            }
        }
        rendering = task
        let page = await task.value
        rendering = nil
        // A failure (the database busy, say) is not kept: the next request draws again.
        if case .success = page, (cached?.generation ?? Int.min) <= generation { cached = (generation, page) }
        return page
    }
}
