/// The target's synthetic content: byte `i` of version `v` of every body is `"a" + (i + v) % 26`,
/// so any range of any resource can be produced without storing it, a client can verify what it
/// received, and two versions of one resource differ at every offset (a splice is always corrupt).
public enum DeterministicBody {
    public static func byte(at offset: Int, version: Int = 0) -> UInt8 {
        UInt8(ascii: "a") + UInt8((offset + version) % 26)
    }

    /// The bytes in `range` (absolute offsets) of `version`.
    public static func bytes(_ range: Range<Int>, version: Int = 0) -> [UInt8] {
        range.map { byte(at: $0, version: version) }
    }
}
