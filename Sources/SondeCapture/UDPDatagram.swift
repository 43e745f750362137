/// One UDP datagram decoded from a captured frame. `payloadLength` comes from the UDP header's
/// length field (checked against the IP header's), not from the captured bytes, so a capture cut
/// by its snap length still counts bytes correctly.
struct UDPDatagram {
    /// Capture time, ns since 1970.
    var timestampNanos: Int64
    var source: PacketEndpoint
    var destination: PacketEndpoint
    /// UDP payload bytes on the wire (the length field minus the 8-byte header), ≥ 0.
    var payloadLength: Int
    /// The payload bytes the capture holds: the first `payload.count` ≤ `payloadLength`. Points
    /// into the frame: valid only while the frame is.
    var payload: UnsafeRawBufferPointer
    /// The IP packet's total length (bytes on the wire above the link layer).
    var ipLength: Int
}
