import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
            // pthread_setname_np on the thread itself: Foundation's setter names the kernel thread
            // only when the Thread already knows its pthread, which the creating thread records
            // after pthread_create returns, so a new thread that ran first (a loaded machine) kept
            // its creator's name. Foundation's own name is set as well, for `Thread.current.name`.
            if let setName = Self.setKernelThreadName {
                let truncated = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
                _ = truncated.withCString { setName(pthread_self(), $0) }
            }
            Thread.current.name = name
            body()
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return thread
    }

    /// glibc's `pthread_setname_np`, which Swift's Glibc module does not export (it is a GNU
    /// extension); looked up once. nil where the C library lacks it.
    private static let setKernelThreadName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }()
}

/// Runs blocking work (the libcurl event loop) on its own thread, off Swift's cooperative pool,
/// so that in-process servers (the embedded target, `sonde serve`) keep their threads. The thread
/// is named `name` (`Thread.startNamed`).
///
/// `body` need not be `Sendable`: the engines it drives are made by the caller for this run and
/// confined to the new thread, and the caller is suspended until `body` returns, so nothing of
/// the caller's runs beside it on what it captured (`BodyHandoff`).
public func runOnDedicatedThread<T: Sendable>(named name: String, _ body: @escaping () -> T) async -> T {
    let handoff = BodyHandoff(body: body)
    return await withCheckedContinuation { continuation in
        Thread.startNamed(name, stackSize: 8 << 20) { continuation.resume(returning: handoff.body()) }
    }
}

/// A body on its way to the thread that runs it (`runOnDedicatedThread`, `WorkerPool.run`).
/// `@unchecked Sendable`: the body is called once, on that thread, while its caller waits for the result.
struct BodyHandoff<T>: @unchecked Sendable {
    let body: () -> T
}
