import Foundation
import SondeHTTP

/// What a download response says about resumption: validators, the content range, the digest.
struct ResponseFacts {
    let head: ResponseHead

    /// The ETag when it is strong (a weak one cannot be used in If-Range, RFC 9110 §13.1.5).
    var strongETag: String? {
        guard let etag = head.value("ETag"), !etag.hasPrefix("W/") else { return nil }
        return etag
    }

    var lastModified: String? { head.value("Last-Modified") }

    /// What URLSession would keep to resume with: a strong ETag, else Last-Modified.
    var validator: String? { strongETag ?? lastModified }

    /// `Content-Range: bytes first-last/complete` → (first, last, complete); nil when absent or malformed.
    var contentRange: (first: Int64, last: Int64, complete: Int64?)? {
        guard let value = head.value("Content-Range")?.trimmingCharacters(in: .whitespaces),
              value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        return (first, last, parts[1] == "*" ? nil : Int64(parts[1]))
    }

    /// The representation's length: the Content-Range's complete length, or Content-Length of a 200.
    var representationLength: Int64? {
        if head.status == 206 { return contentRange?.complete }
        return head.status == 200 ? head.value("Content-Length").flatMap { Int64($0) } : nil
    }

    /// The SHA-256 (lowercase hex) from `Repr-Digest: sha-256=:BASE64:` (RFC 9530), or from a
    /// 200's Content-Digest (the content is the whole representation then).
    var reprDigestSha256: String? {
        if let value = head.value("Repr-Digest"), let hex = Self.sha256(inDigestField: value) { return hex }
        if head.status == 200, let value = head.value("Content-Digest"), let hex = Self.sha256(inDigestField: value) { return hex }
        return nil
    }

    static func sha256(inDigestField value: String) -> String? {
        for member in value.split(separator: ",") {
            let pair = member.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == "sha-256" else { continue }
            let encoded = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            guard let data = Data(base64Encoded: encoded), data.count == 32 else { return nil }
            return data.map { String(format: "%02x", $0) }.joined()
        }
        return nil
    }

    /// The headers that matter to a resume, for evidence: `206 · Content-Range: … · ETag: …`.
    var evidence: String {
        var parts = ["\(head.status)"]
        for name in ["Content-Range", "ETag", "Last-Modified", "Accept-Ranges", "Content-Length", "Content-Type"] {
            if let value = head.value(name) { parts.append("\(name): \(value)") }
        }
        return parts.joined(separator: " · ")
    }
}
