import CPingShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore
import SondeSuite

/// `/probe` with blackbox_exporter's icmp prober: resolve the target (a host, no port) by the
/// module's IP preference, send one echo request (`payload_size` bytes of data, blackbox's
/// "Prometheus Blackbox Exporter" at their start; `ttl`; IPv4 `dont_fragment`) and wait until the
/// probe's deadline for the matching echo reply, with blackbox 0.23's series:
/// `probe_icmp_duration_seconds{phase=resolve|setup|rtt}`, `probe_icmp_reply_hop_limit` (the
/// reply's TTL or hop limit, when the kernel gave it), the lookup's three, `probe_success`,
/// `probe_duration_seconds`.
///
/// The socket is, as blackbox's: an unprivileged ICMP datagram socket first (Linux lets the
/// groups of `net.ipv4.ping_group_range` open one; the kernel then owns the echo identifier),
/// else a raw socket (root or CAP_NET_RAW); `dont_fragment` over IPv4 takes a raw socket. A
/// reply matches when it comes from the target and is our request's echo reply: same identifier
/// (raw sockets only), sequence and data.
///
/// Threading: `probe` runs the blocking work on a thread of `ProbeThreads`; call it from any task.
struct BlackboxICMPProber: BlockingBlackboxProber {
    static let kind = "icmp"
    let module: BlackboxModule
    let moduleName: String
    /// The probe's time limit (s).
    let timeout: Double
    var debug = false

    /// blackbox's echo data (and the start of a longer `payload_size`).
    static let payloadText = Array("Prometheus Blackbox Exporter".utf8)
    /// The echo identifier of a raw socket: blackbox's, the process id's low 16 bits.
    static let identifier = UInt16(truncatingIfNeeded: getpid())

    func run(target: String) -> BlackboxProber.Outcome {
        let icmp = module.icmp
        var run = beginRun(target: target)
        for phase in ["resolve", "setup", "rtt"] { run.exposition.set("probe_icmp_duration_seconds", 0, labels: [("phase", phase)]) }
        let host = target.hasPrefix("[") && target.hasSuffix("]") ? String(target.dropFirst().dropLast()) : target
        guard let resolved = run.resolve(host: host, preferred: icmp.preferredIPProtocol, fallback: icmp.ipProtocolFallback) else {
            return run.finish(success: false)
        }
        run.exposition.set("probe_icmp_duration_seconds", resolved.seconds, labels: [("phase", "resolve")])

        let setupStart = monotonicMicroseconds()
        run.log.say("Creating socket", "")
        let v4 = resolved.family == 4
        var socket = sonde_ping_socket()
        var datagramErrno: Int32 = 0
        // IPv4's DF bit is set on a raw socket only, as blackbox sets it (its own IP header).
        let opened = sonde_ping_open(v4 ? AF_INET : AF_INET6, v4 && icmp.dontFragment ? 0 : 1, &socket, &datagramErrno)
        guard opened == 0 else {
            run.log.say("Error listening to socket", "err=\"\(Self.errorText(-opened))\"" + (datagramErrno != 0 ? " unprivileged_err=\"\(Self.errorText(datagramErrno))\"" : ""))
            return run.finish(success: false)
        }
        defer { sonde_ping_close(&socket) }
        if datagramErrno != 0 {
            run.log.say("Unable to do unprivileged listen on socket, will attempt privileged", "err=\"\(Self.errorText(datagramErrno))\"")
        }
        run.log.say("Created socket", socket.privileged == 1 ? "kind=raw" : "kind=unprivileged_datagram")
        let configured = sonde_ping_configure(&socket, Int32(icmp.ttl), v4 && icmp.dontFragment ? 1 : 0)
        guard configured == 0 else {
            run.log.say("Error setting socket options", "err=\"\(Self.errorText(-configured))\"")
            return run.finish(success: false)
        }
        var data = Self.payloadText
        if icmp.payloadSize > 0 {
            data = Array(Self.payloadText.prefix(icmp.payloadSize))
            data += [UInt8](repeating: 0, count: icmp.payloadSize - data.count)
        }
        let sequence = sonde_ping_next_sequence()
        let request = ICMPEcho(request: true, v4: v4, identifier: Self.identifier, sequence: sequence, data: data)
        run.log.say("Creating ICMP packet", "seq=\(sequence) id=\(Self.identifier)")
        let message = request.encoded()
        run.exposition.set("probe_icmp_duration_seconds", Double(monotonicMicroseconds() - setupStart) / 1e6, labels: [("phase", "setup")])

        run.log.say("Writing out packet", "")
        let rttStart = monotonicMicroseconds()
        let sent = message.withUnsafeBufferPointer { sonde_ping_send(&socket, resolved.address, $0.baseAddress, $0.count) }
        guard sent == 0 else {
            run.log.say("Error writing to socket", "err=\"\(Self.errorText(-sent))\"")
            return run.finish(success: false)
        }
        run.log.say("Waiting for reply packets", "")
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var from = [CChar](repeating: 0, count: 64)
        // Every datagram the socket sees (a raw socket sees every ICMP message of its family) is
        // read until the matching reply or the deadline; each read waits at most what is left.
        while !run.expired {
            var hopLimit: Int32 = -1
            let waitMs = Int32(max(1, min(Double(Int32.max), (run.remaining * 1000).rounded(.up))))
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                from.withUnsafeMutableBufferPointer { sender in
                    sonde_ping_receive(&socket, waitMs, bytes.baseAddress, bytes.count, sender.baseAddress, sender.count, &hopLimit)
                }
            }
            if count == -Int(ETIMEDOUT) { break }
            guard count >= 0 else {
                run.log.say("Error reading from socket", "err=\"\(Self.errorText(Int32(-count)))\"")
                continue
            }
            let sender = String(decoding: from.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard sender == resolved.address,
                  let reply = ICMPEcho(decoding: buffer[0..<count], v4: v4),
                  reply.matches(request, checkIdentifier: socket.privileged == 1) else { continue }
            run.exposition.set("probe_icmp_duration_seconds", Double(monotonicMicroseconds() - rttStart) / 1e6, labels: [("phase", "rtt")])
            if hopLimit >= 0 {
                run.exposition.set("probe_icmp_reply_hop_limit", Double(hopLimit))
            }
            run.log.say("Found matching reply packet", "")
            return run.finish(success: true)
        }
        run.log.say("Timeout reading from socket", "err=\"no matching echo reply before the deadline\"")
        return run.finish(success: false)
    }

    /// strerror's text of `code`.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// An ICMP (IPv4) or ICMPv6 echo message: type, code 0, checksum, identifier, sequence, data
/// (RFC 792, RFC 4443 section 4). Encoding fills in the IPv4 checksum; ICMPv6's (over a pseudo
/// header) is the kernel's, as it is for every ICMPv6 socket.
struct ICMPEcho: Equatable {
    /// Request (8, ICMPv6 128) or reply (0, ICMPv6 129).
    var request: Bool
    var v4: Bool
    var identifier: UInt16
    var sequence: UInt16
    var data: [UInt8]

    init(request: Bool, v4: Bool, identifier: UInt16, sequence: UInt16, data: [UInt8]) {
        self.request = request
        self.v4 = v4
        self.identifier = identifier
        self.sequence = sequence
        self.data = data
    }

    /// nil unless `bytes` is an echo request or reply of the family (at least the 8-byte header).
    init?(decoding bytes: ArraySlice<UInt8>, v4: Bool) {
        guard bytes.count >= 8 else { return nil }
        let base = bytes.startIndex
        let type = bytes[base], code = bytes[base + 1]
        guard code == 0 else { return nil }
        switch (v4, type) {
        case (true, 8), (false, 128): request = true
        case (true, 0), (false, 129): request = false
        default: return nil
        }
        self.v4 = v4
        identifier = UInt16(bytes[base + 4]) << 8 | UInt16(bytes[base + 5])
        sequence = UInt16(bytes[base + 6]) << 8 | UInt16(bytes[base + 7])
        data = Array(bytes[(base + 8)...])
    }

    var type: UInt8 { v4 ? (request ? 8 : 0) : (request ? 128 : 129) }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = [type, 0, 0, 0, UInt8(identifier >> 8), UInt8(identifier & 0xFF), UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        bytes += data
        if v4 {
            let sum = Self.checksum(bytes)
            bytes[2] = UInt8(sum >> 8)
            bytes[3] = UInt8(sum & 0xFF)
        }
        return bytes
    }

    /// Whether this is the reply to `request`: its sequence and data, and its identifier unless
    /// the kernel chose it (an unprivileged datagram socket).
    func matches(_ request: ICMPEcho, checkIdentifier: Bool) -> Bool {
        !self.request && v4 == request.v4 && sequence == request.sequence && data == request.data
            && (!checkIdentifier || identifier == request.identifier)
    }

    /// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit words.
    static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < bytes.count {
            sum += UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { sum += UInt32(bytes[index]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }
}
