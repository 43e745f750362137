import CPcap
import Glibc
import SondeCore

/// `sonde analyze FILE`: reads a pcap or pcapng file with libpcap (both byte orders, micro- and
/// nanosecond timestamps) and analyses its TCP connections with `TCPFlowAnalyzer` and its QUIC
/// connections (UDP) with `QUICFlowAnalyzer`.
///
/// Hostile or damaged files never crash it and never make it allocate without bound: libpcap
/// validates the file header and every record header (it rejects bad magic and absurd record
/// lengths, and clamps a record longer than the snap length to it); a file that ends mid-record or goes bad later yields the flows read so far
/// with `complete: false` and the reason in `problems`. Unknown link types are an error that
/// names the type.
public enum CaptureFileAnalyzer {
    /// Link types sonde decodes, by libpcap name (for messages and docs/analyze.md).
    public static let supportedLinkTypes = ["EN10MB (Ethernet, with 802.1Q/802.1ad tags)", "LINUX_SLL", "LINUX_SLL2",
                                            "RAW (IPv4/IPv6)", "NULL and LOOP (BSD loopback)"]

    /// TCP connections (and, apart, QUIC connections) analysed one by one, at most: past them,
    /// packets are counted in `CaptureReport.omitted`. About 6 KB of memory per connection are
    /// held through the report's writing (a 300,000-connection file took 1.9 GB without a bound).
    public static let defaultFlowLimit = 10_000

    /// - Parameters:
    ///   - markLimit: packets kept per connection for timelines (`FlowEvidence.packets`,
    ///     `QUICFlowEvidence.packets`); 0: none.
    ///   - flowLimit: connections analysed one by one, at most, of each of TCP and QUIC.
    public static func analyze(path: String, packetLimit: Int = .max, markLimit: Int = 0,
                               flowLimit: Int = defaultFlowLimit) throws(TaskError) -> CaptureReport {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        // The stream opened here with a 1 MiB buffer: libpcap reads each record with two freads,
        // and stdio's default 4 KiB buffer made a read system call every few packets.
        guard let file = fopen(path, "rb") else {
            throw TaskError(code: .localIOError, message: "cannot read capture \(path): \(String(cString: strerror(errno)))")
        }
        setvbuf(file, nil, _IOFBF, 1 << 20)
        guard let handle = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer) else {
            fclose(file)
            let reason = String(cString: errorBuffer)
            throw TaskError(code: .localIOError, message: "cannot read capture \(path): \(reason.isEmpty ? "unknown error" : reason)")
        }
        defer { pcap_close(handle) }
        let dlt = pcap_datalink(handle)
        let linkName = pcap_datalink_val_to_name(dlt).map { String(cString: $0) } ?? "DLT \(dlt)"
        guard let link = PacketDecoder.LinkType(dlt: dlt) else {
            throw TaskError(code: .unsupportedFeature,
                            message: "capture \(path) has link type \(linkName) (\(dlt)), which sonde does not decode; "
                                + "supported: \(supportedLinkTypes.joined(separator: ", "))")
        }
        let nanosecond = pcap_get_tstamp_precision(handle) == Int32(PCAP_TSTAMP_PRECISION_NANO)

        var analyzer = TCPFlowAnalyzer(markLimit: markLimit, flowLimit: flowLimit)
        var quic = QUICFlowAnalyzer(markLimit: markLimit, flowLimit: flowLimit)
        var packets = 0, other = 0
        var problems: [String] = []
        var complete = true
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while packets < packetLimit {
            let status = pcap_next_ex(handle, &header, &data)
            if status == -2 { break }  // end of file
            guard status == 1, let header, let data else {
                complete = false
                let reason = status == -1 ? String(cString: pcap_geterr(handle)) : "unexpected libpcap status \(status)"
                problems.append("reading stopped after \(packets) packets: \(reason)")
                break
            }
            packets += 1
            let seconds = Int64(header.pointee.ts.tv_sec)
            let fraction = Int64(header.pointee.ts.tv_usec)
            let nanos = seconds * 1_000_000_000 + (nanosecond ? fraction : fraction * 1000)
            let frame = UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen))
            switch PacketDecoder.decodePacket(frame, link: link, timestampNanos: nanos) {
            case .tcp(let segment)?: analyzer.add(segment)
            case .udp(let datagram)?: if !quic.add(datagram) { other += 1 }
            case nil: other += 1
            }
        }
        if packets == packetLimit {
            complete = false
            problems.append("stopped at the packet limit of \(packetLimit)")
        }
        var omitted = analyzer.omitted
        omitted.quicDatagrams = quic.omitted.quicDatagrams
        omitted.quicInitials = quic.omitted.quicInitials
        omitted.quicBytes = quic.omitted.quicBytes
        return CaptureReport(file: path, linkType: linkName, packets: packets, otherPackets: other, complete: complete,
                             problems: problems, flows: analyzer.evidence(), quicFlows: quic.evidence(),
                             omitted: omitted.isEmpty ? nil : omitted)
    }
}
