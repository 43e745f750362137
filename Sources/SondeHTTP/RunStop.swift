import CSignalFlags

/// The stop of one run (a scheduled check past its time limit), where a signal stops every run of
/// the process. Engines poll `isPulled`; libcurl's progress callback reads the same flag
/// (`StreamingTransfer.watch(stop:)`), so a transfer, even a stalled one, ends within about a
/// second of the pull. Pulled once, never reset.
///
/// Threading: any thread. `@unchecked Sendable`: the flag is C memory read and written only
/// through `sonde_stop_flag_pull` / `sonde_stop_flag_is_pulled` (atomic), allocated for the
/// object's life.
public final class RunStop: @unchecked Sendable {
    let flag: UnsafeMutablePointer<sonde_stop_flag>

    public init() {
        flag = .allocate(capacity: 1)
        flag.initialize(to: sonde_stop_flag(pulled: 0))
    }

    deinit { flag.deallocate() }

    public func pull() { sonde_stop_flag_pull(flag) }

    public var isPulled: Bool { sonde_stop_flag_is_pulled(flag) != 0 }
}
