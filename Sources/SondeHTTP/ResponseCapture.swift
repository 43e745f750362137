import SondeCore

/// The last hop's response of a `ProbeRunner` task as it came (headers not redacted, the body up
/// to `maxBodyBytes`), for a caller that judges them itself: serve's `/probe` matches blackbox
/// modules' regular expressions against them. Set `ProbeOptions.responseCapture` to one; it is
/// cleared at each hop's start, so after the run it holds the final hop's response.
///
/// A body longer than `maxBodyBytes` ends the transfer (a write error, as libcurl reports any
/// refused body chunk) and sets `bodyExceeded`.
///
/// Threading: written on the engine's thread during `ProbeRunner.run`, read after it returned;
/// meant for runs of one task (`count` 1, `parallel` 1).
public final class ResponseCapture: @unchecked Sendable {
    public let maxBodyBytes: Int
    /// The final hop's response headers, in order, as received (1xx blocks left out).
    public private(set) var headers: [HeaderField] = []
    /// The final hop's body (decoded when libcurl decodes it), at most `maxBodyBytes`.
    public private(set) var body: [UInt8] = []
    /// The body went past `maxBodyBytes` (`body` holds its start).
    public private(set) var bodyExceeded = false

    public init(maxBodyBytes: Int) { self.maxBodyBytes = max(0, maxBodyBytes) }

    /// A new hop begins: what the last one left is dropped.
    func startHop() {
        headers = []
        body.removeAll(keepingCapacity: true)
        bodyExceeded = false
    }

    /// A chunk of the body; false (the transfer is cut) once the body would pass `maxBodyBytes`.
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard body.count + chunk.count <= maxBodyBytes else {
            body += chunk.prefix(maxBodyBytes - body.count)
            bodyExceeded = true
            return false
        }
        body += chunk
        return true
    }

    /// The hop ended with these headers.
    func finishHop(headers: [HeaderField]) { self.headers = headers }

    /// The values of the header `name` (any case), in order.
    public func values(of name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}
