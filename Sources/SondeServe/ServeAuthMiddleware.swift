import Crypto
import Foundation
import Hummingbird
import HummingbirdBcrypt
import SondeRun
import Synchronization

/// Asks every request for the credentials serve's web config names (basic auth against bcrypt
/// hashes, or the bearer token): 401 with `WWW-Authenticate` otherwise, before any route runs.
///
/// bcrypt costs tens of milliseconds a check, which a scrape every few seconds should not pay:
/// a user and password that verified are remembered (their SHA-256, never the password) for the
/// process, as the exporter toolkit does. A reload that changes the users forgets them.
/// Threading: any thread (a mutex).
public final class ServeAuth: Sendable {
    private let settings: Mutex<(users: [String: String], token: [UInt8]?, verified: Set<[UInt8]>)>

    public init(_ config: WebConfig?) {
        settings = Mutex(([:], nil, []))
        update(config)
    }

    /// The credentials of a reloaded config.
    public func update(_ config: WebConfig?) {
        let token = config?.bearerToken.map { Array(SHA256.hash(data: Data($0.utf8))) }
        settings.withLock { $0 = (config?.basicAuthUsers ?? [:], token, []) }
    }

    public var required: Bool { settings.withLock { !$0.users.isEmpty || $0.token != nil } }

    /// Whether the `Authorization` header value lets a request in.
    func admits(_ authorization: String?) -> Bool {
        let (users, token, verified) = settings.withLock { ($0.users, $0.token, $0.verified) }
        guard !users.isEmpty || token != nil else { return true }
        guard let authorization else { return false }
        if authorization.hasPrefix("Bearer "), let token {
            let offered = Array(SHA256.hash(data: Data(authorization.dropFirst("Bearer ".count).utf8)))
            return Self.constantTimeEqual(offered, token)
        }
        guard authorization.hasPrefix("Basic "), authorization.count < 4096,
              let decoded = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
              let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":") else { return false }
        let user = String(pair[..<colon]), password = String(pair[pair.index(after: colon)...])
        guard let hash = users[user] else { return false }
        let key = Array(SHA256.hash(data: Data((user + "\u{0}" + password + "\u{0}" + hash).utf8)))
        if verified.contains(key) { return true }
        // `$2y$` is `$2b$` under another name (PHP's); the C library knows the latter.
        let normalized = hash.hasPrefix("$2y$") ? "$2b$" + hash.dropFirst(4) : hash
        guard Bcrypt.verify(password, hash: normalized) else { return false }
        settings.withLock { settings in if settings.verified.count < 10_000 { settings.verified.insert(key) } }
        return true
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// The middleware that applies `ServeAuth` to every route.
struct ServeAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let auth: ServeAuth

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let header = request.headers[.authorization]
        guard auth.admits(header) else {
            return Response(status: .unauthorized,
                            headers: [.wwwAuthenticate: "Basic realm=\"sonde serve\"", .contentType: "text/plain; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "Unauthorized\n")))
        }
        return try await next(request, context)
    }
}
