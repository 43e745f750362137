import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The endpoints of the embedded target. Every size and delay is bounded so that a typo cannot
/// make the target allocate or wait without limit.
enum TargetRoutes {
    static let maxBytes = 1 << 30
    static let maxDelayMs = 60_000
    static let chunkSize = 64 * 1024
    /// A fixed validator date, so ETag and Last-Modified stay the same across target restarts.
    static let lastModified = "Sat, 01 Nov 2025 00:00:00 GMT"

    static func build() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in index() }
        router.get("/bytes/:n") { request, context in try bytes(request, context) }
        router.head("/bytes/:n") { request, context in try bytes(request, context) }
        router.get("/delay/:ms") { _, context in
            let ms = try bounded(context.parameters.require("ms", as: Int.self), 0...maxDelayMs, "ms")
            try await Task.sleep(nanoseconds: UInt64(ms) * 1_000_000)
            return text("delayed \(ms) ms\n")
        }
        router.get("/drip") { request, _ in try drip(request) }
        router.get("/redirect/:n") { request, context in
            let n = try bounded(context.parameters.require("n", as: Int.self), 0...100, "n")
            guard n > 0 else { return text("redirect chain done\n") }
            let status = request.uri.queryParameters.get("status", as: Int.self) ?? 302
            guard [301, 302, 303, 307, 308].contains(status) else {
                throw HTTPError(.badRequest, message: "status must be 301, 302, 303, 307 or 308")
            }
            let query = request.uri.query.map { "?\($0)" } ?? ""
            return Response(status: .init(code: status),
                            headers: [.location: "/redirect/\(n - 1)\(query)", .contentLength: "0"])
        }
        router.get("/status/:code") { _, context in
            let code = try bounded(context.parameters.require("code", as: Int.self), 200...599, "code")
            return Response(status: .init(code: code), headers: [.contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: "status \(code)\n")))
        }
        router.get("/headers") { request, _ in
            var fields: [[String: String]] = []
            for field in request.headers { fields.append(["name": field.name.rawName, "value": field.value]) }
            let data = try JSONSerialization.data(withJSONObject: ["headers": fields], options: [.sortedKeys])
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.get("/response-headers") { request, _ in
            // Each query parameter becomes a response header (as httpbin's endpoint of the same name):
            // what a server can send back, e.g. a Set-Cookie that every report must redact.
            var headers: HTTPFields = [.contentType: "text/plain"]
            for (key, value) in request.uri.queryParameters {
                guard let name = HTTPField.Name(String(key)) else {
                    throw HTTPError(.badRequest, message: "not a header name: \(key)")
                }
                // The message's framing stays the server's: a lying length is /truncate's job.
                guard ![.contentLength, .transferEncoding, .connection].contains(name) else {
                    throw HTTPError(.badRequest, message: "\(name) cannot be set here")
                }
                headers.append(HTTPField(name: name, value: String(value)))
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "headers set\n")))
        }
        router.get("/hostile") { _, _ in
            // Every payload of the corpus in a response header (names X-Hostile-0…), in the
            // Content-Type, and as the body: what a hostile server can put into every report.
            var headers: HTTPFields = [.contentType: HostilePayloads.corpus[1]]
            for (index, payload) in HostilePayloads.corpus.enumerated() where !payload.contains("\n") {
                if let name = HTTPField.Name("X-Hostile-\(index)") { headers[name] = payload }
            }
            return Response(status: .ok, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: HostilePayloads.corpus.joined(separator: "\n"))))
        }
        router.post("/echo") { request, _ in
            let body = try await request.body.collect(upTo: 16 * 1024 * 1024)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: body))
        }
        router.get("/truncate/:n") { request, context in
            // Announces n bytes, sends `after` of them (default half), then drops the connection.
            let n = try bounded(context.parameters.require("n", as: Int.self), 1...maxBytes, "n")
            let after = try bounded(request.uri.queryParameters.get("after", as: Int.self) ?? n / 2, 0...(n - 1), "after")
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                            body: ResponseBody(contentLength: n) { writer in
                                if after > 0 { try await writer.write(ByteBuffer(bytes: DeterministicBody.bytes(0..<after))) }
                                throw TargetAbort()
                            })
        }
        return router
    }

    private static func index() -> Response {
        text("""
        sonde target: /bytes/{n}[?mode=&dropAfter=&dropAt=&stallAfter=&stallMs=&refuse=&status=&retryAfter=&key=] /delay/{ms} /drip?bytes=&ms= /redirect/{n}[?status=] /status/{code} /headers
                      POST /echo  /truncate/{n}[?after=]  /hostile (XSS and breakout payloads in headers and body)

        """)
    }

    private static func text(_ value: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: value)))
    }

    private static func bounded(_ value: Int, _ range: ClosedRange<Int>, _ name: String) throws -> Int {
        guard range.contains(value) else {
            throw HTTPError(.badRequest, message: "\(name) must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// `/bytes/{n}`: see `TransferResource`.
    private static func bytes(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let n = try bounded(context.parameters.require("n", as: Int.self), 0...maxBytes, "n")
        return try TransferResource.respond(request, length: n)
    }

    /// `/drip?bytes=N&ms=M`: N bytes spread over M milliseconds in up to 20 chunks.
    private static func drip(_ request: Request) throws -> Response {
        let total = try bounded(request.uri.queryParameters.get("bytes", as: Int.self) ?? 10, 1...(16 << 20), "bytes")
        let ms = try bounded(request.uri.queryParameters.get("ms", as: Int.self) ?? 1000, 0...maxDelayMs, "ms")
        let chunks = min(20, total)
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                        body: ResponseBody(contentLength: total) { writer in
                            var sent = 0
                            for index in 0..<chunks {
                                let end = index == chunks - 1 ? total : (index + 1) * total / chunks
                                if index > 0 { try await Task.sleep(nanoseconds: UInt64(ms / max(1, chunks - 1)) * 1_000_000) }
                                try await writer.write(ByteBuffer(bytes: DeterministicBody.bytes(sent..<end)))
                                sent = end
                            }
                            try await writer.finish(nil)
                        })
    }
}

/// Thrown inside a response body writer to cut the connection mid-body.
struct TargetAbort: Error {}
