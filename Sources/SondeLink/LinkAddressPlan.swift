#if canImport(Glibc)
import Glibc
#endif

/// The names and addresses of one link, derived from sonde's PID and the link's instance number
/// in this process (links of a suite's checks, one after another or at once), so that concurrent
/// runs and links never share one and a stale one names the process that made it.
///
/// Instance 0 is `sonde-link-<pid>` with devices `sonde<pid>h`/`sonde<pid>c`; instance n > 0 is
/// `sonde-link-<pid>-<n mod 100>` with `sonde<pid>h<n mod 100>` (an interface name holds at most
/// 15 bytes). Each instance also gets its own address slot: a server still holding a connection
/// from an earlier link (whose FIN never crossed before it went) must not see the next link's
/// connections reuse the same address and ports.
///
/// Addresses come from 198.18.0.0/15 (RFC 2544's range for benchmarking, never routed on the
/// Internet): slot `i` (0…32767) is the /30 at 198.18.0.0 + 4i, the host side's TUN `.1`, the
/// namespace's `.2`. Only host routes (/32) are added, so a slot collides with nothing but an
/// identical /32, which `choose` skips.
public struct LinkAddressPlan: Sendable, Equatable {
    public var pid: Int32
    /// `sonde-link-<pid>`: the namespace's name under /run/netns (`ip netns list` shows it).
    public var namespaceName: String
    /// `sonde<pid>h`, in the host's namespace.
    public var hostDevice: String
    /// `sonde<pid>c`, in the run's namespace.
    public var clientDevice: String
    /// Network byte order.
    public var hostAddress: UInt32
    public var clientAddress: UInt32

    /// Under `nat64`: the namespace's one IPv6 address, `fd53:6f6e:6465::2` (a ULA; the same in
    /// every namespace, since nothing outside sees it: the translator maps it to `clientAddress`).
    public static let clientAddress6: [UInt8] = [0xfd, 0x53, 0x6f, 0x6e, 0x64, 0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]
    /// Under `nat64`: the link's resolver inside, `[fd53:6f6e:6465::53]:53` (its DNS64, `DNS64Server`; `NAT64Translator.resolver6`).
    public static let resolverAddress6: [UInt8] = [0xfd, 0x53, 0x6f, 0x6e, 0x64, 0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x53]
    public static let resolverAddressText = "fd53:6f6e:6465::53"
    /// The host side's MTU under `nat64`: an IPv4 packet of 1480 bytes is 1500 once translated.
    public static let nat64HostMTU: Int32 = 1480

    /// An address's 4 bytes (network order in memory).
    public static func bytes(_ address: UInt32) -> [UInt8] { withUnsafeBytes(of: address) { Array($0) } }

    public static let namespacePrefix = "sonde-link-"
    public static let namespaceDirectory = "/run/netns"
    public var namespacePath: String { Self.namespaceDirectory + "/" + namespaceName }

    init(pid: Int32, slot: Int, instance: Int = 0) {
        self.pid = pid
        let suffix = instance == 0 ? "" : "\(instance % 100)"
        namespaceName = Self.namespacePrefix + "\(pid)" + (suffix.isEmpty ? "" : "-" + suffix)
        hostDevice = "sonde\(pid)h" + suffix
        clientDevice = "sonde\(pid)c" + suffix
        let base = UInt32(198 << 24 | 18 << 16) + UInt32(slot % 32_768) * 4
        hostAddress = (base + 1).bigEndian
        clientAddress = (base + 2).bigEndian
    }

    /// The plan for `pid`'s link `instance`: the slot `(pid + 7919 × instance) mod 32768`, or the
    /// next whose namespace-side address no host route of this namespace uses yet
    /// (/proc/net/route), at most 64 tries.
    static func choose(pid: Int32, instance: Int = 0) -> LinkAddressPlan {
        let routes = usedHostRoutes()
        let first = (Int(pid) + 7919 * (instance % 32_768)) % 32_768
        var plan = LinkAddressPlan(pid: pid, slot: first, instance: instance)
        for offset in 0..<64 {
            plan = LinkAddressPlan(pid: pid, slot: first + offset, instance: instance)
            if !routes.contains(plan.clientAddress) { return plan }
        }
        return plan
    }

    /// The PID in a namespace name `sonde-link-<pid>` or `sonde-link-<pid>-<n>`, nil for another name.
    static func pid(inNamespaceName name: String) -> Int32? {
        guard name.hasPrefix(namespacePrefix) else { return nil }
        let rest = name.dropFirst(namespacePrefix.count)
        let digits = rest.prefix { $0 != "-" }
        guard rest.count == digits.count || rest.dropFirst(digits.count + 1).allSatisfy(\.isNumber),
              let pid = Int32(digits), pid > 0 else { return nil }
        return pid
    }

    /// Destinations (network byte order, as /proc/net/route writes them in hex) of the calling thread's namespace's routes.
    private static func usedHostRoutes() -> Set<UInt32> {
        guard let bytes = ProcFiles.read("/proc/net/route", maxBytes: 4 << 20) else { return [] }
        var result: Set<UInt32> = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            if fields.count > 1, let destination = UInt32(fields[1], radix: 16) { result.insert(destination) }
        }
        return result
    }

    /// A dotted quad of a network-byte-order address.
    public static func text(_ address: UInt32) -> String {
        let host = UInt32(bigEndian: address)
        return "\(host >> 24).\((host >> 16) & 255).\((host >> 8) & 255).\(host & 255)"
    }
}
