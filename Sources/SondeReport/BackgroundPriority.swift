import Foundation

/// Moves a thread between Linux's `SCHED_IDLE` policy (runs only on CPU time nothing else wants)
/// and the normal `SCHED_OTHER`, so that sonde's own bookkeeping never takes the CPU from the
/// thread that measures, nor from the server it measures when both share the machine.
///
/// A `SCHED_IDLE` thread must be able to come back: on a machine busy with other work it would
/// otherwise starve. Leaving `SCHED_IDLE` needs `CAP_SYS_NICE` or an `RLIMIT_NICE` that allows
/// nice 0 (sched(7)), so `isAvailable` is false without either, and then nothing is ever lowered.
enum BackgroundPriority {
    /// Whether a thread lowered to `SCHED_IDLE` can be raised again by this process.
    static let isAvailable: Bool = {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(__RLIMIT_NICE.rawValue), &limit) == 0 && limit.rlim_cur >= 20 { return true }
        return hasSysNiceCapability()
    }()

    /// Lowers `thread` to `SCHED_IDLE`. Returns whether it was lowered.
    @discardableResult
    static func lower(_ thread: pthread_t) -> Bool {
        guard isAvailable else { return false }
        var parameters = sched_param()
        return pthread_setschedparam(thread, schedIdle, &parameters) == 0
    }

    /// Raises `thread` back to `SCHED_OTHER`.
    static func raise(_ thread: pthread_t) {
        var parameters = sched_param()
        _ = pthread_setschedparam(thread, Int32(SCHED_OTHER), &parameters)
    }

    /// `SCHED_IDLE` (linux/sched.h), which Glibc's module does not export.
    private static let schedIdle: Int32 = 5

    /// Bit 23 (`CAP_SYS_NICE`) of the effective capability set in /proc/self/status.
    private static func hasSysNiceCapability() -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
              let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << 23) != 0
    }
}
