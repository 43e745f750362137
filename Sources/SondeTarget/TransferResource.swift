import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Synchronization

/// `/bytes/{n}`: n deterministic bytes for download and resume trials. By default a well-behaved
/// resource: strong ETag, Last-Modified, `Accept-Ranges: bytes`, one byte range answered 206 with
/// a correct Content-Range, If-Range honoured (a changed validator gets the whole body, never a
/// splice), and `Repr-Digest` (RFC 9530) with the SHA-256 of the whole representation.
///
/// Query parameters make it misbehave or fail, per request:
/// - `mode=` a comma-separated list of
///   `ignoreRange` (200 and the whole body every time), `wrongRange` (206 for a range that starts
///   at 0 whatever was asked), `lyingRange` (a Content-Range that claims the asked range over a body
///   that starts at 0: only a digest catches it), `noValidators` (no ETag, no Last-Modified),
///   `weakEtag` (a weak ETag and nothing else), `changing` (a new version, ETag and content on
///   every request), `ignoreIfRange` (Range honoured whatever If-Range says).
/// - `dropAfter=N`: the connection is dropped after N body bytes of this response;
///   `dropAt=X`: dropped just before absolute offset X when this response started before X.
/// - `stallAfter=N&stallMs=M`: the body stops for M ms (default 30 s) after N bytes.
/// - `refuse=K&status=503|429&retryAfter=S&key=K`: the first K requests with this key are refused
///   with that status and `Retry-After: S` (default 1).
enum TransferResource {
    struct Modes: OptionSet {
        let rawValue: Int
        static let ignoreRange = Modes(rawValue: 1)
        static let wrongRange = Modes(rawValue: 2)
        static let lyingRange = Modes(rawValue: 4)
        static let noValidators = Modes(rawValue: 8)
        static let weakEtag = Modes(rawValue: 16)
        static let changing = Modes(rawValue: 32)
        static let ignoreIfRange = Modes(rawValue: 64)
        static let names: [(String, Modes)] = [
            ("ignoreRange", .ignoreRange), ("wrongRange", .wrongRange), ("lyingRange", .lyingRange),
            ("noValidators", .noValidators), ("weakEtag", .weakEtag), ("changing", .changing),
            ("ignoreIfRange", .ignoreIfRange),
        ]
    }

    /// Every request of a `changing` resource is a new version (0…25 cycle in the content).
    private static let versions = Mutex(0)
    /// Requests refused so far per `key`.
    private static let refusals = Mutex<[String: Int]>([:])

    static func respond(_ request: Request, length n: Int) throws -> Response {
        let query = request.uri.queryParameters
        var modes: Modes = []
        for name in (query.get("mode") ?? "").split(separator: ",") {
            guard let mode = Modes.names.first(where: { $0.0 == name })?.1 else {
                throw HTTPError(.badRequest, message: "unknown mode \(name); known: \(Modes.names.map(\.0).joined(separator: ", "))")
            }
            modes.insert(mode)
        }
        if let refused = try refusal(query) { return refused }

        let version = modes.contains(.changing) ? versions.withLock { value in value += 1; return value } : 0
        let etag = modes.contains(.changing) ? "\"bytes-\(n)-v\(version)\"" : "\"bytes-\(n)\""
        var headers: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
        if modes.contains(.weakEtag) {
            headers[.eTag] = "W/" + etag
        } else if !modes.contains(.noValidators) {
            headers[.eTag] = etag
            // A changing resource has no fixed date to give: its ETag is its only validator.
            if !modes.contains(.changing) { headers[.lastModified] = TargetRoutes.lastModified }
        }
        if let name = HTTPField.Name("Repr-Digest") {
            headers[name] = ResourceDigests.shared.reprDigest(length: n, version: version)
        }

        var answer = ByteRange.answer(rangeHeader: request.headers[.range], length: n)
        if modes.contains(.ignoreRange) { answer = .full }
        if !modes.contains(.ignoreIfRange), let ifRange = request.headers[.ifRange],
           ifRange != headers[.eTag] || ifRange.hasPrefix("W/"), ifRange != headers[.lastModified] {
            answer = .full  // The validator changed: the whole representation, never a splice.
        }
        var range = 0..<n
        var status = HTTPResponse.Status.ok
        switch answer {
        case .full: break
        case .partial(let bytes):
            status = .partialContent
            range = bytes.lowerBound..<(bytes.upperBound + 1)
            if modes.contains(.wrongRange) {
                range = 0..<range.count
                headers[.contentRange] = "bytes 0-\(range.count - 1)/\(n)"
            } else {
                headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(n)"
                if modes.contains(.lyingRange) { range = 0..<range.count }
            }
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(n)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        if request.method == .head {
            headers[.contentLength] = String(range.count)
            return Response(status: status, headers: headers)
        }
        let faults = try Faults(query, maxBytes: n)
        let bodyRange = range
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: bodyRange.count) { writer in
            var offset = bodyRange.lowerBound
            var sent = 0
            var stalled = false
            while offset < bodyRange.upperBound {
                var end = min(offset + TargetRoutes.chunkSize, bodyRange.upperBound)
                var cut: Int? = nil
                if let after = faults.dropAfter { cut = bodyRange.lowerBound + after }
                if let at = faults.dropAt, bodyRange.lowerBound < at { cut = min(cut ?? at, at) }
                if let cut, cut < end {
                    if cut > offset { try await writer.write(ByteBuffer(bytes: DeterministicBody.bytes(offset..<cut, version: version))) }
                    throw TargetAbort()
                }
                if !stalled, let after = faults.stallAfter, sent + (end - offset) >= after {
                    end = offset + max(0, after - sent)
                    if end > offset { try await writer.write(ByteBuffer(bytes: DeterministicBody.bytes(offset..<end, version: version))) }
                    sent += end - offset
                    offset = end
                    stalled = true
                    try await Task.sleep(nanoseconds: UInt64(faults.stallMs) * 1_000_000)
                    continue
                }
                try await writer.write(ByteBuffer(bytes: DeterministicBody.bytes(offset..<end, version: version)))
                sent += end - offset
                offset = end
            }
            try await writer.finish(nil)
        })
    }

    private struct Faults {
        var dropAfter: Int?
        var dropAt: Int?
        var stallAfter: Int?
        var stallMs = 30_000

        init(_ query: FlatDictionary<Substring, Substring>, maxBytes: Int) throws {
            func value(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
                guard let text = query.get(name) else { return nil }
                guard let number = Int(text), range.contains(number) else {
                    throw HTTPError(.badRequest, message: "\(name) must be in \(range.lowerBound)...\(range.upperBound)")
                }
                return number
            }
            dropAfter = try value("dropAfter", 0...TargetRoutes.maxBytes)
            dropAt = try value("dropAt", 0...TargetRoutes.maxBytes)
            stallAfter = try value("stallAfter", 0...TargetRoutes.maxBytes)
            stallMs = try value("stallMs", 0...TargetRoutes.maxDelayMs) ?? stallMs
        }
    }

    private static func refusal(_ query: FlatDictionary<Substring, Substring>) throws -> Response? {
        guard let text = query.get("refuse") else { return nil }
        guard let limit = Int(text), (0...1000).contains(limit) else {
            throw HTTPError(.badRequest, message: "refuse must be in 0...1000")
        }
        let status = query.get("status", as: Int.self) ?? 503
        guard [429, 500, 502, 503, 504].contains(status) else {
            throw HTTPError(.badRequest, message: "status must be 429, 500, 502, 503 or 504")
        }
        let key = query.get("key") ?? ""
        let refused = refusals.withLock { counts -> Bool in
            let count = counts[key, default: 0]
            guard count < limit else { return false }
            counts[key] = count + 1
            return true
        }
        guard refused else { return nil }
        let retryAfter = query.get("retryAfter") ?? "1"
        var headers: HTTPFields = [.contentType: "text/plain", .retryAfter: retryAfter]
        headers[.connection] = "close"
        return Response(status: .init(code: status), headers: headers,
                        body: .init(byteBuffer: ByteBuffer(string: "refused \(status) (\(key))\n")))
    }
}
