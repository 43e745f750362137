import SondeCore

/// The kernel's drop counters of one network device, as /proc/net/dev shows them for the calling
/// thread's network namespace (`/proc/thread-self/net/dev`): for a TUN, `transmit` counts packets
/// the kernel dropped because the TUN's queue toward its reader (the emulator) was full (the
/// driver's tx_dropped: Linux's TUN has no backpressure since 3.8, it drops when its ring of
/// txqueuelen packets is full), `receive` the packets written to it that the kernel dropped on
/// the way in (rx_dropped plus rx_missed_errors).
struct DeviceDrops: Sendable, Equatable {
    var receive: Int64 = 0
    var transmit: Int64 = 0

    /// The counters of `device` in the calling thread's namespace, or nil when it is not listed
    /// (gone), the file cannot be read, or a counter is not a count of 0…10^12.
    static func read(device: String) -> DeviceDrops? {
        guard let bytes = ProcFiles.read("/proc/thread-self/net/dev", maxBytes: 1 << 20) else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self), device: device)
    }

    /// The line of `device` in /proc/net/dev's text: `NAME: rx_bytes rx_packets rx_errs rx_drop
    /// rx_fifo rx_frame rx_compressed rx_multicast tx_bytes tx_packets tx_errs tx_drop ...`.
    static func parse(_ text: String, device: String) -> DeviceDrops? {
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            guard String(line[..<colon]).trimmingWhitespace() == device else { continue }
            let fields = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" })
            // Counts a report holds (0…10^12): a kernel counter beyond that is not taken.
            let bound = 0...FieldRule.maxCount
            guard fields.count >= 16, let receive = Int64(fields[3]), let transmit = Int64(fields[11]),
                  bound.contains(receive), bound.contains(transmit) else { return nil }
            return DeviceDrops(receive: receive, transmit: transmit)
        }
        return nil
    }
}
