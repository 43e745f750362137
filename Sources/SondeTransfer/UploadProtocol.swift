import SondeCore
import SondeHTTP

/// The resumable-upload protocol a trial speaks, and the header fields that differ between them.
public enum UploadProtocol: Sendable, Equatable, Codable {
    /// "Resumable Uploads for HTTP" (draft-ietf-httpbis-resumable-upload) at an interop version:
    /// 3 (draft -01, iOS 17), 5 (draft -03, iOS 18.0), 6 (iOS 18.1, Upload-Limit), 8 (draft -11).
    case ietf(version: Int)
    /// tus 1.0.0 core with the creation extension.
    case tus

    public static let ietfVersions = 3...8

    /// The name in the report's `protocol` field: `ietf-draft-v6`, `tus-1.0.0`.
    public var name: String {
        switch self {
        case .ietf(let version): return "ietf-draft-v\(version)"
        case .tus: return "tus-1.0.0"
        }
    }

    /// The fields every request of this protocol carries.
    var baseHeaders: [HeaderField] {
        switch self {
        case .ietf(let version): return [HeaderField(name: "Upload-Draft-Interop-Version", value: "\(version)")]
        case .tus: return [HeaderField(name: "Tus-Resumable", value: "1.0.0")]
        }
    }

    /// The completeness field of a request whose body ends the upload (`complete`) or not.
    func completeness(_ complete: Bool) -> [HeaderField] {
        switch self {
        case .ietf(let version) where version <= 3:
            return [HeaderField(name: "Upload-Incomplete", value: complete ? "?0" : "?1")]
        case .ietf:
            return [HeaderField(name: "Upload-Complete", value: complete ? "?1" : "?0")]
        case .tus:
            return []
        }
    }

    /// Whether a response says the upload is complete (IETF); nil when it does not say.
    func saysComplete(_ head: ResponseHead) -> Bool? {
        switch self {
        case .ietf(let version) where version <= 3:
            return head.value("Upload-Incomplete").map { $0 == "?0" }
        case .ietf:
            return head.value("Upload-Complete").map { $0 == "?1" }
        case .tus:
            return nil
        }
    }

    /// The Content-Type of an append.
    var appendContentType: String? {
        switch self {
        case .ietf(let version): return version >= 6 ? "application/partial-upload" : nil
        case .tus: return "application/offset+octet-stream"
        }
    }
}
