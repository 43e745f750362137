import SondeCore

/// A journal line's outer object read by structure, whatever its whitespace and key order: the
/// `type` it names and where each other member's value lies. For lines that another tool
/// re-wrote (Python's `json.dumps` puts a space after every colon and comma), which the fast
/// paths, matching sonde's own compact prefixes and suffixes, do not recognise.
///
/// Linear in the line's length; nil for anything that is not one JSON object with a string `type`.
struct JournalEnvelope {
    let type: String
    private let line: ArraySlice<UInt8>
    private let members: [String: Range<Int>]

    init?(_ line: ArraySlice<UInt8>) {
        var reader = JSONReader(line)
        var type: String?
        var members: [String: Range<Int>] = [:]
        do throws(JSONReadError) {
            try reader.readObject { (member: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                if key == "type" {
                    type = try member.readString()
                } else {
                    members[key.description] = try member.readRawValue()
                }
            }
        } catch {
            return nil
        }
        guard reader.isAtEnd(), let type else { return nil }
        self.type = type
        self.line = line
        self.members = members
    }

    /// The bytes of the member `name`'s value (a slice of the line), nil when absent.
    func member(_ name: String) -> ArraySlice<UInt8>? {
        members[name].map { line[(line.startIndex + $0.lowerBound)..<(line.startIndex + $0.upperBound)] }
    }
}
