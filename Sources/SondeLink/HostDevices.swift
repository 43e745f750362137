#if canImport(Glibc)
import Glibc
#endif

/// The host's network devices as far as forwarding to and from a link's namespace concerns them,
/// read in the calling thread's network namespace.
///
/// Linux decides whether to forward an IPv4 packet by the *input* device's
/// `net.ipv4.conf.DEV.forwarding` alone (`ip_route_input_slow`: `IN_DEV_FORWARD(in_dev)`; the global
/// `ip_forward` is `conf.all.forwarding`, which only copies itself to every device when written).
/// Checked on this kernel (docs/link.md): with only the host TUN's flag on, a masqueraded SYN
/// leaves through a veth and its SYN-ACK is dropped on the veth (IpInAddrErrors); with the veth's
/// flag on too, the connection completes, `ip_forward` staying 0.
enum HostDevices {
    /// Names of the devices that have an IPv4 address (only they can be a masqueraded flow's way
    /// out, and so the way its replies come in), except `lo`, sonde's own TUNs, and names nft could
    /// not take literally. A label alias (`eth0:1`) counts as its device.
    static func withIPv4Address() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var names: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        var count = 0
        while let entry = cursor, count < 100_000 {
            count += 1
            cursor = entry.pointee.ifa_next
            guard let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET,
                  let raw = entry.pointee.ifa_name else { continue }
            let label = String(cString: raw)
            let name = String(label.prefix { $0 != ":" })
            guard name != "lo", !isLinkTUN(name), isPlainName(name), !names.contains(name) else { continue }
            names.append(name)
        }
        return names
    }

    /// `net.ipv4.conf.NAME.forwarding` as 0 or 1, or nil when the device is gone.
    static func forwarding(_ name: String) -> Int? {
        guard isPlainName(name), let bytes = ProcFiles.read(sysctlPath(name), maxBytes: 16) else { return nil }
        guard bytes.count <= 2, bytes.count == 1 || bytes.last == UInt8(ascii: "\n") else { return nil }
        switch bytes.first {
        case UInt8(ascii: "0"): return 0
        case UInt8(ascii: "1"): return 1
        default: return nil
        }
    }

    /// Sets `net.ipv4.conf.NAME.forwarding`.
    static func setForwarding(_ name: String, _ on: Bool) throws(LinkError) {
        guard isPlainName(name) else { throw LinkError(.setup, "not a device name: \(name)") }
        try ProcFiles.writeSysctl(sysctlPath(name), on ? "1" : "0")
    }

    static func sysctlPath(_ name: String) -> String { "/proc/sys/net/ipv4/conf/\(name)/forwarding" }

    /// `sonde<digits>h` or `sonde<digits>c`: a link's TUN, whose forwarding is its own run's.
    static func isLinkTUN(_ name: String) -> Bool {
        guard name.hasPrefix("sonde"), let last = name.last, last == "h" || last == "c" else { return false }
        let digits = name.dropFirst(5).dropLast()
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// 1…15 characters of `A-Z a-z 0-9 _ . -` (not `.` or `..`): safe inside an nft string and a
    /// /proc path. Linux allows more in a device name; a device named otherwise is left alone.
    static func isPlainName(_ name: String) -> Bool {
        guard (1...15).contains(name.utf8.count), name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x5f || byte == 0x2e || byte == 0x2d
        }
    }
}
