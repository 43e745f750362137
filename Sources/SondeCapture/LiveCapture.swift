import CPcap
import Foundation
import SondeCore
import Synchronization

/// A live libpcap capture of sonde's own flows into a pcap file, on a thread of its own: BPF
/// filter from the remote addresses and ports the run will talk to, immediate mode (a packet is
/// written as it comes, none wait in a ring block when the capture stops), a 64 MiB kernel ring,
/// and libpcap's own counters (`pcap_stats`) for what the kernel dropped.
///
/// Threading: `init` opens and activates (throws with a message that says how to get the
/// privilege when it is missing); `start` runs the capture thread; `stop` ends it, flushes and
/// closes the file and returns the counters. Call them from one thread.
public final class LiveCapture: @unchecked Sendable {
    public struct Counters: Sendable, Equatable {
        /// Packets the kernel handed to libpcap's filter (pcap_stats ps_recv).
        public var received: Int
        /// Dropped for lack of buffer space (ps_drop) or by the interface (ps_ifdrop).
        public var dropped: Int
    }

    public let interface: String
    public let filter: String
    public let path: String
    private let handle: OpaquePointer
    private let dumper: OpaquePointer
    private let done = DispatchSemaphore(value: 0)
    private var stopping = false
    private var started = false
    /// When the capture thread last wrote a packet (µs, monotonic).
    private let lastPacketMicros = Mutex<Int64>(0)

    /// Loopback's 64 KiB MTU plus link, IP and TCP headers: whole packets, payload included (a
    /// `--keylog` decryption needs it).
    static let snapLength: Int32 = 65_536 + 256

    /// How to grant the privilege live capture needs, for messages.
    public static let privilegeHint = "live capture needs root or the CAP_NET_RAW capability: run sonde as root, or grant it once with "
        + "`sudo setcap cap_net_raw,cap_net_admin+eip $(command -v sonde)`; `--capture=optional` runs without a capture instead"

    public init(interface: String, filter: String, path: String) throws(TaskError) {
        self.interface = interface
        self.filter = filter
        self.path = path
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let handle = pcap_create(interface, &errorBuffer) else {
            throw TaskError(code: .localIOError, message: "cannot open interface \(interface) for capture: \(String(cString: errorBuffer))")
        }
        // Immediate mode makes libpcap use fixed-size ring frames (TPACKET_V2), each as large as
        // the snap length: 64 KiB + headers (loopback's MTU) and a 64 MiB ring give about a thousand
        // slots, where 256 KiB and 16 MiB gave 64 and dropped packets at --parallel 32.
        pcap_set_snaplen(handle, Self.snapLength)
        pcap_set_promisc(handle, 0)
        pcap_set_immediate_mode(handle, 1)
        pcap_set_buffer_size(handle, 64 << 20)
        pcap_set_timeout(handle, 100)
        pcap_set_tstamp_precision(handle, Int32(PCAP_TSTAMP_PRECISION_NANO))
        let status = pcap_activate(handle)
        if status < 0 {
            let detail = String(cString: pcap_geterr(handle))
            pcap_close(handle)
            if status == PCAP_ERROR_PERM_DENIED || detail.lowercased().contains("permitted") {
                throw TaskError(code: .unsupportedFeature, message: "cannot capture on \(interface) (\(detail)): " + Self.privilegeHint)
            }
            throw TaskError(code: .localIOError, message: "cannot capture on \(interface): \(detail)")
        }
        var program = bpf_program()
        guard pcap_compile(handle, &program, filter, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            let detail = String(cString: pcap_geterr(handle))
            pcap_close(handle)
            throw TaskError(code: .internalError, message: "the capture filter '\(filter)' does not compile: \(detail)")
        }
        defer { pcap_freecode(&program) }
        guard pcap_setfilter(handle, &program) == 0 else {
            let detail = String(cString: pcap_geterr(handle))
            pcap_close(handle)
            throw TaskError(code: .localIOError, message: "cannot set the capture filter: \(detail)")
        }
        // The file is created exclusively and never through a symbolic link (pcap_dump_open
        // would follow one), then handed to libpcap.
        let descriptor: Int32
        do { descriptor = try NoFollowFile.replace(path) } catch {
            pcap_close(handle)
            throw error
        }
        guard let file = fdopen(descriptor, "wb") else {
            close(descriptor)
            pcap_close(handle)
            throw TaskError(code: .localIOError, message: "cannot write \(path): \(systemErrorMessage())")
        }
        guard let dumper = pcap_dump_fopen(handle, file) else {
            let detail = String(cString: pcap_geterr(handle))
            fclose(file)
            pcap_close(handle)
            throw TaskError(code: .localIOError, message: "cannot write \(path): \(detail)")
        }
        self.handle = handle
        self.dumper = dumper
    }

    /// Starts writing packets on a thread of its own.
    public func start() {
        guard !started else { return }
        started = true
        Thread.startNamed("sonde-capture") { [self] in
            // Each dispatch returns within the 100 ms timeout, so a stop is seen soon.
            let user = UnsafeMutablePointer<UInt8>(dumper)
            while !stopping {
                let count = pcap_dispatch(handle, -1, pcap_dump, user)
                if count < 0 { break }
                if count > 0 {
                    lastPacketMicros.withLock { $0 = monotonicMicroseconds() }
                }
            }
            done.signal()
        }
    }

    /// Stops the capture once no packet came for `quiet` seconds (the last FIN/ACKs of the run's
    /// connections), or after `limit` seconds at most, then analyses the file (`CaptureFileAnalyzer`)
    /// into the run's evidence: interface, filter, the kernel's drops, `markLimit` packets kept per
    /// connection for the timelines.
    public func finish(quiet: Double = 0.1, limit: Double = 1, markLimit: Int) throws(TaskError) -> CaptureReport {
        let start = monotonicMicroseconds()
        while started {
            let now = monotonicMicroseconds()
            let last = lastPacketMicros.withLock { $0 }
            if Double(now - max(last, start)) / 1e6 >= quiet || Double(now - start) / 1e6 >= limit { break }
            usleep(20_000)
        }
        let counters = stop()
        var report = try CaptureFileAnalyzer.analyze(path: path, markLimit: markLimit)
        report.interface = interface
        report.filter = filter
        report.drops = counters.dropped
        report.file = (path as NSString).lastPathComponent
        return report
    }

    /// Stops the capture, writes what is buffered and closes the file.
    public func stop() -> Counters {
        if started {
            stopping = true
            pcap_breakloop(handle)
            done.wait()
        }
        var stats = pcap_stat()
        let counters = pcap_stats(handle, &stats) == 0
            ? Counters(received: Int(stats.ps_recv), dropped: Int(stats.ps_drop) + Int(stats.ps_ifdrop))
            : Counters(received: 0, dropped: 0)
        pcap_dump_flush(dumper)
        pcap_dump_close(dumper)
        pcap_close(handle)
        return counters
    }

    /// The BPF filter of a run's flows: TCP and UDP (QUIC) between a local port in `localPorts`
    /// (the run binds its connections there: libcurl binds its QUIC sockets to the block too) and
    /// any of `endpoints` (address, port). Another program's connections to the same server use
    /// ephemeral ports outside the range, so they stay out of the file.
    public static func filter(for endpoints: [(address: String, port: Int)], localPorts: ClosedRange<Int>) -> String {
        let unique = Array(Set(endpoints.map { "\($0.address)|\($0.port)" })).sorted()
        let range = "\(localPorts.lowerBound)-\(localPorts.upperBound)"
        func terms(_ transport: String) -> String {
            unique.map { item -> String in
                let parts = item.split(separator: "|")
                return "(host \(parts[0]) and \(transport) port \(parts[1]))"
            }.joined(separator: " or ")
        }
        return "(tcp portrange \(range) and (\(terms("tcp")))) or (udp portrange \(range) and (\(terms("udp"))))"
    }

    /// A block of `count` local ports below the kernel's ephemeral range
    /// (/proc/sys/net/ipv4/ip_local_port_range), where no other program is handed ports, chosen at
    /// random in 10000…19999 (the target's WebSocket listeners use 20000…32000).
    public static func localPortBlock(count: Int = 2048) -> ClosedRange<Int> {
        var ephemeralLow = 32768
        if let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
           let low = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap({ Int($0) }) {
            ephemeralLow = low
        }
        let top = min(20_000, ephemeralLow) - count
        let base = top > 10_000 ? Int.random(in: 10_000...top) : 1024
        return base...(base + count - 1)
    }

    /// The interface that carries traffic to `address`: `lo` for loopback, else the route with the
    /// longest matching prefix in /proc/net/route (IPv4) or /proc/net/ipv6_route; `any` when none
    /// matches.
    public static func interface(for address: String) -> String {
        if address.hasPrefix("127.") || address == "::1" { return "lo" }
        if address.contains(":") {
            guard let table = try? String(contentsOfFile: "/proc/net/ipv6_route", encoding: .utf8) else { return "any" }
            var target = in6_addr()
            guard inet_pton(AF_INET6, address, &target) == 1 else { return "any" }
            let bytes = withUnsafeBytes(of: &target) { Array($0) }
            var best: (length: Int, name: String)? = nil
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 10, let length = Int(fields[1], radix: 16) else { continue }
                let prefix = stride(from: 0, to: 32, by: 2).compactMap { UInt8(fields[0].dropFirst($0).prefix(2), radix: 16) }
                guard prefix.count == 16 else { continue }
                var matches = true
                for bit in 0..<length where (bytes[bit / 8] >> (7 - bit % 8)) & 1 != (prefix[bit / 8] >> (7 - bit % 8)) & 1 {
                    matches = false
                    break
                }
                if matches && length >= (best?.length ?? -1) { best = (length, String(fields[9])) }
            }
            return best?.name ?? "any"
        }
        guard let table = try? String(contentsOfFile: "/proc/net/route", encoding: .utf8) else { return "any" }
        var target = in_addr()
        guard inet_pton(AF_INET, address, &target) == 1 else { return "any" }
        var best: (mask: UInt32, name: String)? = nil
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count >= 8, let destination = UInt32(fields[1], radix: 16), let mask = UInt32(fields[7], radix: 16) else { continue }
            // The table is in network byte order, as `in_addr` is.
            guard target.s_addr & mask == destination & mask else { continue }
            if best == nil || mask.nonzeroBitCount > best!.mask.nonzeroBitCount { best = (mask, String(fields[0])) }
        }
        return best?.name ?? "any"
    }
}
