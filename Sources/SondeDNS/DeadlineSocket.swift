#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// Blocking socket I/O where every wait is bounded by a monotonic deadline (µs, poll): what DNS over
/// TCP needs on both sides, the client (`DNSExchange`) and the link's DNS64 (`DNS64Server`).
/// EINTR and EAGAIN are retried; any other error, the peer's end, or the deadline ends the call.
public enum DeadlineSocket {
    /// Waits until `descriptor` is ready for `events` or the deadline passes (false).
    public static func wait(_ descriptor: Int32, events: Int16, deadline: Int64) -> Bool {
        while true {
            let left = deadline - monotonicMicroseconds()
            guard left > 0 else { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left / 1000 + 1, 60_000)))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    /// Sends all of `bytes` (MSG_NOSIGNAL); false when the connection failed or the deadline passed.
    public static func sendAll(_ descriptor: Int32, _ bytes: [UInt8], deadline: Int64) -> Bool {
        var sent = 0
        while sent < bytes.count {
            guard wait(descriptor, events: Int16(POLLOUT), deadline: deadline) else { return false }
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return false
            }
            sent += count
        }
        return true
    }

    /// Exactly `count` bytes from a stream, nil when it ends first or the deadline passes.
    public static func receiveExactly(_ descriptor: Int32, _ count: Int, deadline: Int64) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var have = 0
        while have < count {
            guard wait(descriptor, events: Int16(POLLIN), deadline: deadline) else { return nil }
            let got = out[have...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if got < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return nil
            }
            if got == 0 { return nil }
            have += got
        }
        return out
    }
}
