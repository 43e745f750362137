/// The target's synthetic content: byte `i` of every body is `"a" + i % 26`, so any range of
/// any resource can be produced without storing it, and a client can verify what it received.
public enum DeterministicBody {
    public static func byte(at offset: Int) -> UInt8 {
        UInt8(ascii: "a") + UInt8(offset % 26)
    }

    /// The bytes in `range` (absolute offsets).
    public static func bytes(_ range: Range<Int>) -> [UInt8] {
        range.map(byte(at:))
    }
}
