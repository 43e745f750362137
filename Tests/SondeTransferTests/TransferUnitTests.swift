import Crypto
import Foundation
import SondeCore
import SondeHTTP
import Testing
@testable import SondeTransfer

@Suite struct RetryPolicyTests {
    @Test func onlyWhatIsRetryableIsRetried() {
        for status in [429, 500, 502, 503, 504] { #expect(RetryPolicy.isRetryable(error: nil, status: status), "\(status)") }
        for status in [400, 401, 403, 404, 410, 416] { #expect(!RetryPolicy.isRetryable(error: .httpStatus, status: status), "\(status)") }
        for code in [ErrorCode.timedOut, .connectTimeout, .connectionReset, .connectionClosed, .truncatedBody, .emptyReply, .connectionRefused] {
            #expect(RetryPolicy.isRetryable(error: code, status: nil), "\(code)")
        }
        for code in [ErrorCode.tlsFailure, .dnsFailure, .malformedURL, .corruptTransfer, .localIOError, .protocolError] {
            #expect(!RetryPolicy.isRetryable(error: code, status: nil), "\(code)")
        }
    }

    @Test func retryAfterIsHonouredOn429And503Only() {
        let policy = RetryPolicy(backoff: BackoffPolicy(initialMs: 100, maxMs: 100, multiplier: 1, jitter: .none), maxRetries: 3,
                                 maxRetryAfterMs: 5000)
        var generator = SeededGenerator(seed: 1)
        #expect(policy.delayMs(failure: 1, status: 503, retryAfter: "2", using: &generator) == 2000)
        #expect(policy.delayMs(failure: 1, status: 429, retryAfter: "3", using: &generator) == 3000)
        #expect(policy.delayMs(failure: 1, status: 500, retryAfter: "3", using: &generator) == 100, "Retry-After only counts on 429 and 503")
        #expect(policy.delayMs(failure: 1, status: 503, retryAfter: "3600", using: &generator) == 5000, "capped")
        #expect(policy.delayMs(failure: 1, status: 503, retryAfter: "soon", using: &generator) == 100, "unreadable: the backoff")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = "Tue, 14 Nov 2023 22:13:24 GMT"  // now + 4 s
        #expect(RetryPolicy.seconds(retryAfter: later, now: now) == 4)
        #expect(RetryPolicy.seconds(retryAfter: "Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0, "a date in the past: at once")
    }
}

@Suite struct TrialPlanTests {
    @Test func offsetsParse() {
        #expect(TrialPlan.Offset(parsing: "1048576") == .bytes(1_048_576))
        #expect(TrialPlan.Offset(parsing: "512KiB") == .bytes(512 * 1024))
        #expect(TrialPlan.Offset(parsing: "4MiB") == .bytes(4 << 20))
        // The one size parser's units: MB is 10^6 bytes, as in --message-size (it was refused here).
        #expect(TrialPlan.Offset(parsing: "4MB") == .bytes(4_000_000))
        #expect(TrialPlan.Offset(parsing: "1.5MiB") == .bytes(1_572_864))
        #expect(TrialPlan.Offset(parsing: "50%") == .fraction(0.5))
        for bad in ["", "0", "-5", "100%", "0%", "x", "512k", "4m", "1.5M", "0B"] { #expect(TrialPlan.Offset(parsing: bad) == nil, "\(bad)") }
    }

    @Test func stopsAreDistinctAscendingInsideTheBodyAndKindsRotate() {
        var generator = SeededGenerator(seed: 42)
        let kinds: [InterruptionKind] = [.clientAbort, .connectionDrop, .processKill]
        for trial in 1...50 {
            let stops = TrialPlan.stops(trial: trial, length: 1000, count: 3, offsets: nil, kinds: kinds, using: &generator)
            #expect(!stops.isEmpty && stops.count <= 3)
            #expect(stops.map(\.atByte) == stops.map(\.atByte).sorted() && Set(stops.map(\.atByte)).count == stops.count)
            #expect(stops.allSatisfy { $0.atByte > 0 && $0.atByte < 1000 })
            #expect(stops[0].kind == kinds[(trial - 1) % 3])
        }
        let given = TrialPlan.stops(trial: 1, length: 1000, count: 1, offsets: [.fraction(0.5), .bytes(5000), .bytes(10)],
                                    kinds: [.clientAbort], using: &generator)
        #expect(given.map(\.atByte) == [10, 500], "offsets past the end are dropped")
        var a = SeededGenerator(seed: 7), b = SeededGenerator(seed: 7)
        #expect(TrialPlan.stops(trial: 3, length: 1 << 30, count: 4, offsets: nil, kinds: kinds, using: &a)
                == TrialPlan.stops(trial: 3, length: 1 << 30, count: 4, offsets: nil, kinds: kinds, using: &b), "a seed replays")
    }
}

@Suite struct ResponseFactsTests {
    func facts(_ status: Int, _ fields: [(String, String)]) -> ResponseFacts {
        ResponseFacts(head: ResponseHead(status: status, headers: fields.map { HeaderField(name: $0.0, value: $0.1) }))
    }

    @Test func contentRangeAndValidators() {
        let partial = facts(206, [("Content-Range", "bytes 100-199/1000"), ("ETag", "\"v1\""), ("Last-Modified", "Sat, 01 Nov 2025 00:00:00 GMT")])
        #expect(partial.contentRange?.first == 100 && partial.contentRange?.last == 199 && partial.contentRange?.complete == 1000)
        #expect(partial.representationLength == 1000)
        #expect(partial.validator == "\"v1\"")
        #expect(facts(206, [("Content-Range", "bytes 100-199/*")]).contentRange?.complete == nil)
        for bad in ["bytes 199-100/1000", "items 1-2/3", "bytes 1-2", "bytes a-b/3", "bytes */1000"] {
            #expect(facts(206, [("Content-Range", bad)]).contentRange == nil, "\(bad)")
        }
        let weak = facts(200, [("ETag", "W/\"v1\""), ("Content-Length", "10")])
        #expect(weak.strongETag == nil && weak.validator == nil && weak.representationLength == 10)
        #expect(facts(200, [("ETag", "W/\"v1\""), ("Last-Modified", "x")]).validator == "x", "a date stands in for a weak ETag")
    }

    @Test func digests() {
        // sha-256 of "abc".
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let field = "sha-512=:AAAA:, sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"
        #expect(ResponseFacts.sha256(inDigestField: field) == hex)
        #expect(ResponseFacts.sha256(inDigestField: "sha-256=:notbase64!:") == nil)
        #expect(facts(200, [("Content-Digest", "sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:")]).reprDigestSha256 == hex)
        #expect(facts(206, [("Content-Digest", "sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:")]).reprDigestSha256 == nil,
                "a 206's Content-Digest is of the part, not the representation")
    }
}

@Suite struct PartialFileTests {
    @Test func theHashOfAReopenedFileContinuesWhereTheWriterStopped() throws {
        let path = NSTemporaryDirectory() + "sonde-partial-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let whole = try PartialFile(path: path)
        try bytes.withUnsafeBytes { try whole.append($0) }
        let expected = whole.sha256
        try whole.truncate()
        #expect(whole.size == 0)
        try bytes[0..<40_000].withUnsafeBytes { try whole.append($0) }
        #expect(try PartialFile(path: path, verifying: false).size == 0, "appends gather in memory until a flush")
        try whole.flush()
        let reopened = try PartialFile(path: path)  // a new process picking the file up
        #expect(reopened.size == 40_000)
        try bytes[40_000...].withUnsafeBytes { try reopened.append($0) }
        #expect(reopened.sha256 == expected)
        #expect(try PartialFile(path: path, verifying: false).sha256 == nil)

        let resume = ResumeData(url: "http://x/y", partialPath: path)
        try resume.save(to: path + ".json")
        defer { try? FileManager.default.removeItem(atPath: path + ".json") }
        #expect(try ResumeData.load(from: path + ".json") == resume)
        #expect(throws: TaskError.self) { try ResumeData.load(from: path) }  // not JSON
    }

    private static func append(_ bytes: ArraySlice<UInt8>, to file: PartialFile) throws(TaskError) {
        var refused: TaskError? = nil
        bytes.withUnsafeBytes { chunk in
            do throws(TaskError) { try file.append(chunk) } catch { refused = error }
        }
        if let refused { throw refused }
    }

    /// Writes happen on the writer's thread: a failure there (here /dev/full's ENOSPC) still
    /// reaches the owner, at the next hand-over or flush, and `size` is then what the file holds.
    @Test func aFailedWriteOnTheWritingThreadReachesTheOwner() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let file = try PartialFile(path: "/dev/full", verifying: false)
        let chunk = [UInt8](repeating: 7, count: 256 << 10)
        var failure: TaskError? = nil
        do throws(TaskError) {
            for _ in 0..<64 { try Self.append(chunk[...], to: file) }
            try file.flush()
        } catch {
            failure = error
        }
        #expect(failure?.code == .localIOError)
        #expect(failure?.message.contains("No space left on device") == true, "\(String(describing: failure))")
        #expect(file.size == 0, "nothing reached the file, so nothing counts")
        try file.flush()  // the failure was taken: no second throw for the same bytes
    }

    /// Hashing happens on a thread of its own, after the write: bytes that did not reach the file
    /// (here /dev/full's ENOSPC) are not in the hash either, and a hash continued from earlier
    /// content stays that content's.
    @Test func bytesAFailedWriteLostAreNotHashed() throws {
        let descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var earlier = SHA256()
        earlier.update(data: Array("earlier content".utf8))
        let expected = earlier.finalize()
        let writer = BackgroundWriter(descriptor: descriptor, path: "/dev/full", writtenEnd: 15, hasher: earlier)
        for _ in 0..<16 { writer.write([UInt8](repeating: 7, count: 64 << 10), at: 15) }
        let (writtenEnd, failure) = writer.drain()
        #expect(failure?.code == .localIOError)
        #expect(writtenEnd == 15)
        #expect(writer.digest() == expected)
    }

    /// `bytesWritten` (what resume data saved during a transfer says) never runs ahead of the file,
    /// and catches up with `size` at the flush.
    @Test func bytesWrittenNeverRunsAheadOfTheFile() throws {
        let path = NSTemporaryDirectory() + "sonde-partial-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try PartialFile(path: path)
        let piece = [UInt8](repeating: 3, count: 64 << 10)
        var sawBehind = false
        for _ in 0..<(12 << 4) {  // 12 MiB in 64 KiB pieces
            try Self.append(piece[...], to: file)
            let written = file.bytesWritten
            let onDisk = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64)
            #expect(written <= onDisk && written <= file.size)
            if written < file.size { sawBehind = true }
        }
        #expect(sawBehind, "pieces gather in memory, so the file lags behind size at times")
        try file.flush()
        #expect(file.bytesWritten == file.size)
        #expect(file.size == 12 << 20)
    }

    /// Many buffers through the writer: the file and its hash are those of the bytes appended, in order.
    @Test func theWriterKeepsOrderAndHashesWhatItWrote() throws {
        let path = NSTemporaryDirectory() + "sonde-partial-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(9 << 20) + 12_345).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let file = try PartialFile(path: path)
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, Int.random(in: 1...70_000, using: &generator))
            try Self.append(bytes[offset..<(offset + count)], to: file)
            offset += count
        }
        let digest = file.sha256
        #expect(digest == PartialFile.hex(SHA256.hash(data: bytes)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
}
