#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// glibc malloc's retention in `sonde serve`, a process that lives for weeks while each of its runs
/// allocates a few MB on whichever thread runs it and frees them at its end. Without this, glibc's
/// dynamic mmap threshold rises to the largest block freed so far (up to 32 MiB), after which large
/// buffers come from the arenas (one per thread, up to 8 per core) and stay there when freed: serve
/// held 70–110 MiB of anonymous memory after a few minutes of 50 checks every 10 s, almost all free.
/// The functions are looked up once with `dlsym` (malloc.h is not in Swift's Glibc module); on a C
/// library without them (musl) both calls do nothing.
///
/// Threading: any thread.
public enum MallocRetention {
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32
    /// `M_MMAP_THRESHOLD` (malloc.h).
    private static let mmapThresholdParameter: Int32 = -3
    nonisolated(unsafe) private static let mallopt: Mallopt? = symbol("mallopt")
    nonisolated(unsafe) private static let mallocTrim: MallocTrim? = symbol("malloc_trim")

    private static func symbol<Function>(_ name: String) -> Function? {
        #if canImport(Glibc)
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
        #else
        return nil
        #endif
    }

    /// Whether the C library has both functions (glibc does; then neither call is a silent no-op).
    static var isAvailable: Bool { mallopt != nil && mallocTrim != nil }

    /// Fixes the mmap threshold at `bytes` (glibc's starting value, 128 KiB, by default): every block
    /// of that size or more is its own mapping, returned to the system when freed. Setting it turns
    /// glibc's dynamic threshold off. Call once, at start.
    public static func fixMmapThreshold(bytes: Int32 = 128 * 1024) {
        _ = mallopt?(mmapThresholdParameter, bytes)
    }

    /// Returns the free pages of every arena to the system (`malloc_trim(0)`: `MADV_DONTNEED` on whole
    /// free pages): after a run, so that what one run freed is not kept until the next one on that thread.
    /// Takes each arena's lock in turn, for about as long as it walks that arena's free blocks.
    public static func trim() {
        lastTrim.note()
        _ = mallocTrim?(0)
    }

    /// `trim`, unless one was done less than `seconds` ago: after a `/probe`, which may come hundreds of
    /// times a second (each trim walks every arena).
    public static func trim(notMoreOftenThan seconds: Double) {
        guard lastTrim.claim(every: seconds) else { return }
        _ = mallocTrim?(0)
    }

    /// When the last trim began.
    private static let lastTrim = IntervalGate()
}
