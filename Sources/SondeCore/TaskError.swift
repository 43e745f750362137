/// A failure as data: a stable code for machines, a message a person can act on, and the evidence.
public struct TaskError: Sendable, Equatable, Error {
    public var code: ErrorCode
    public var message: String
    /// libcurl's CURLcode when the failure came from libcurl, else nil.
    public var curlCode: Int?
    /// A finer classification where the code has several causes (e.g. TLS: "unknownCA").
    public var reason: String?

    public init(code: ErrorCode, message: String, curlCode: Int? = nil, reason: String? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.reason = reason
    }
}

/// The error taxonomy shared by every engine. Raw values are part of the report format.
public enum ErrorCode: String, Sendable, CaseIterable, ModelValue {
    case malformedURL
    case unsupportedScheme
    case dnsFailure
    case connectionRefused
    case hostUnreachable
    case connectTimeout
    case timedOut
    case tlsFailure
    case connectionReset
    case connectionClosed
    case truncatedBody
    case emptyReply
    case protocolError
    /// The server's reply is not HTTP (HTTP/0.9, random bytes, status 000) or breaks its framing
    /// (bad chunked encoding).
    case invalidResponse
    /// The response's header section is larger than libcurl accepts (one line over 100 KiB, or
    /// 300 KiB in all).
    case headerTooLarge
    /// TCP connected, but the TLS handshake did not finish in time.
    case tlsTimeout
    case httpStatus
    case tooManyRedirects
    /// A redirect to a place the run may not go (`sonde serve`'s `/probe`: outside its allow list).
    case redirectRefused
    case unsupportedFeature
    case interrupted
    case localIOError
    /// The body's Content-Encoding did not decode (truncated or corrupt gzip, deflate or br;
    /// reason `decodedTooLarge`: it decoded past its bound, a decompression bomb).
    case contentDecodingFailed
    /// A transferred file whose SHA-256 does not match what the server or the reference says.
    case corruptTransfer
    /// A GraphQL response with a non-empty `errors` array and no data (its first message is the
    /// cause), or a body that is no GraphQL response at all (reason `notJSON`, `notObject`,
    /// `noData`, `bodyTooLarge`): SondeGraphQL's verdict.
    case graphqlError
    /// A GraphQL response with data beside a non-empty `errors` array (partial data): a failure.
    case graphqlPartial
    case internalError
}

extension TaskError: FieldModel {
    public static let blank = TaskError(code: .internalError, message: "")
    public static var schemaName: String? { "error" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("code", &code, .required)
        try v.visit("message", &message, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("curlCode", &curlCode, .field)
        try v.visit("reason", &reason, .field)
    }
}
