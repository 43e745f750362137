import SondeCore

/// What judges the final response of each probe task by its body, beside the status rule (an
/// application protocol that reports its errors in the body of a 200; a kind extension brings
/// it: docs/architecture.md, "Adding a kind extension"). Set
/// `ProbeOptions.bodyJudge` to one: `ProbeRunner` keeps each hop's body up to `maxBodyBytes`
/// (the rest is received and counted as for any request, not kept) and, for the hop that ends
/// the task (not a redirect it follows, not a transfer libcurl failed), hands it to `judge`.
///
/// Threading: `judge` is called on the engine's thread, once per task.
public protocol ResponseBodyJudge: Sendable {
    /// Bytes of a body kept for `judge`, at least 0 (per task in flight).
    var maxBodyBytes: Int { get }
    /// The task's error, or nil when the response passes. `statusFailure` is what the status rule
    /// found (`httpStatus`, nil when the status passed): the judge returns it, or a clearer error
    /// from the body. Messages are the judge's to redact (with `redactor`) and to bound.
    func judge(_ response: JudgedResponse, statusFailure: TaskError?, redactor: Redactor) -> TaskError?
}

/// The final response of a task as `ResponseBodyJudge.judge` sees it.
public struct JudgedResponse: Sendable {
    public var status: Int
    /// The response headers as received (not redacted).
    public var headers: [HeaderField]
    /// The body (decoded when libcurl decodes it), at most the judge's `maxBodyBytes`.
    public var body: [UInt8]
    /// The body was longer than `maxBodyBytes`: `body` holds its start.
    public var bodyExceeded: Bool

    public init(status: Int, headers: [HeaderField], body: [UInt8], bodyExceeded: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyExceeded = bodyExceeded
    }

    /// The last value of the header `name` (any case).
    public func value(of name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }
}
