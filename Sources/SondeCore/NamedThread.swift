import Foundation

extension Thread {
    /// Starts `body` on a new thread that carries `name` where Linux tools look for it
    /// (/proc/PID/task/*/comm: `top -H`, `perf`, `make bench`'s CPU account).
    ///
    /// Linux names only the calling thread, so Foundation's `Thread.name` set before `start()`
    /// never reaches comm (every such thread kept its creator's name, e.g. a dispatch worker's);
    /// the name is set by the new thread itself before `body` runs. Linux keeps 15 bytes of it.
    /// - Parameter stackSize: bytes, or nil for Foundation's default.
    @discardableResult
    public static func startNamed(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return thread
    }
}
