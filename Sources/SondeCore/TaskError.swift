/// A failure as data: a stable code for machines, a message a person can act on, and the evidence.
public struct TaskError: Codable, Sendable, Equatable, Error {
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

    private enum CodingKeys: String, CodingKey { case code, message, curlCode, reason }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(message, forKey: .message)
        try c.encode(curlCode, forKey: .curlCode)
        try c.encode(reason, forKey: .reason)
    }
}

/// The error taxonomy shared by every engine. Raw values are part of the report format.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
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
    /// A transferred file whose SHA-256 does not match what the server or the reference says.
    case corruptTransfer
    case internalError
}

extension TaskError: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("code", code.rawValue)
            o.member("message", message)
            o.member("curlCode", curlCode)
            o.member("reason", reason)
        }
    }
}
