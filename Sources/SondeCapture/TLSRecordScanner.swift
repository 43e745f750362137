/// Follows one direction of a TCP connection's byte stream through the TLS record layer
/// (RFC 8446 §5.1: content type, legacy version, 16-bit length, body), segment by segment, and
/// reports every record as its header completes — or, for the handshake records it is asked to
/// keep, once the body has arrived.
///
/// Invariants: only in-order bytes are read (a retransmission's already-seen prefix is skipped; a
/// gap stops the scan with a reason, since the record boundaries after it are unknown); memory is
/// one kept record body at most (≤ `maximumRecordLength` bytes); bytes a snap length cut off are
/// harmless while they fall inside a skipped body and stop the scan when they hold a header.
struct TLSRecordScanner {
    /// One record: its content type (20 change_cipher_spec, 21 alert, 22 handshake,
    /// 23 application_data) and the time of the packet that held its first byte.
    struct Record {
        var contentType: UInt8
        var timestampNanos: Int64
        /// The body of a kept handshake record, nil for every other record.
        var body: [UInt8]?
    }

    /// TLSCiphertext's limit (2^14 + 256 in TLS 1.3, 2^14 + 2048 before): a longer record is not TLS.
    static let maximumRecordLength = 16_384 + 2_048

    private(set) var problem: String?
    /// Whether the scan stopped (a problem, or `finish()`): later segments cost nothing.
    private(set) var stopped = false
    /// Keep the bodies of handshake records (the tracker turns this off once it has its hellos).
    var keepsHandshakeBodies = true

    /// The sequence number of the next stream byte to read; nil until the first segment.
    private var next: UInt32?
    private var header: [UInt8] = []
    private var headerStartNanos: Int64 = 0
    private var bodyRemaining = 0
    private var kept: [UInt8]?
    private var keptRecord = Record(contentType: 0, timestampNanos: 0)

    /// Starts the stream at `sequence` (the ISN + 1, when the SYN was seen).
    mutating func start(at sequence: UInt32) {
        if next == nil { next = sequence }
    }

    /// Stops the scan: nothing more is wanted from this direction.
    mutating func finish() { stopped = true }

    /// Reads one segment's payload: `length` stream bytes at `sequence`, of which the first
    /// `captured.count` are in the capture. Calls `record` for each record header or kept body completed.
    mutating func consume(sequence: UInt32, length: Int, captured: UnsafeRawBufferPointer, timestampNanos: Int64,
                          record: (Record) -> Void) {
        guard !stopped, length > 0 else { return }
        let expected = next ?? sequence
        let ahead = Int32(bitPattern: sequence &- expected)
        if ahead > 0 {
            return fail("a gap of \(ahead) bytes in the capture before the end of the handshake")
        }
        // A retransmission: skip what was read already.
        let skip = Int(-ahead)
        guard skip < length else { return }
        next = sequence &+ UInt32(truncatingIfNeeded: length)
        var offset = skip
        while offset < length && !stopped {
            if bodyRemaining > 0 {
                let take = min(bodyRemaining, length - offset)
                if kept != nil {
                    guard offset + take <= captured.count else {
                        return fail("the snap length cut a TLS handshake record")
                    }
                    kept!.append(contentsOf: UnsafeRawBufferPointer(rebasing: captured[offset..<(offset + take)]))
                }
                bodyRemaining -= take
                offset += take
                if bodyRemaining == 0, let body = kept {
                    kept = nil
                    keptRecord.body = body
                    record(keptRecord)
                }
                continue
            }
            guard offset < captured.count else { return fail("the snap length cut a TLS record header") }
            if header.isEmpty { headerStartNanos = timestampNanos }
            header.append(captured[offset])
            offset += 1
            guard header.count == 5 else { continue }
            // Every record layer from SSL 3.0 to TLS 1.3 writes major version 3.
            let type = header[0], major = header[1]
            let recordLength = Int(header[3]) << 8 | Int(header[4])
            header.removeAll(keepingCapacity: true)
            guard (20...24).contains(type), major == 3 else {
                return fail("bytes that are not a TLS record (content type \(type))")
            }
            guard recordLength <= Self.maximumRecordLength else {
                return fail("a TLS record of \(recordLength) bytes, over TLS's limit")
            }
            let found = Record(contentType: type, timestampNanos: headerStartNanos)
            bodyRemaining = recordLength
            if type == 22 && keepsHandshakeBodies && recordLength > 0 {
                kept = []
                kept!.reserveCapacity(recordLength)
                keptRecord = found
            } else {
                record(found)
            }
        }
    }

    private mutating func fail(_ reason: String) {
        if problem == nil { problem = reason }
        stopped = true
        kept = nil
    }
}
