/// The unordered pair of endpoints that names a connection or flow, whichever way a packet goes:
/// the same key for A → B and B → A. Shared by `TCPFlowAnalyzer` and `QUICFlowAnalyzer`.
struct FlowKey: Hashable {
    var a: PacketEndpoint
    var b: PacketEndpoint

    init(_ x: PacketEndpoint, _ y: PacketEndpoint) {
        if x.precedes(y) || x == y {
            a = x; b = y
        } else {
            a = y; b = x
        }
    }

    /// Three words instead of the synthesized byte-by-byte walk: hashing was a tenth of the
    /// analysis of a large capture.
    func hash(into hasher: inout Hasher) {
        hasher.combine(a.address.low &+ a.address.high &* 0x9E37_79B9_7F4A_7C15)
        hasher.combine(b.address.low &+ b.address.high &* 0x9E37_79B9_7F4A_7C15)
        hasher.combine(UInt64(a.port) << 16 | UInt64(b.port))
    }
}
