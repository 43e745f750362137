import Crypto
import Foundation
import Hummingbird
import HummingbirdBcrypt
import SondeSuite
import Synchronization

/// Asks every request for the credentials serve's web config names (basic auth against bcrypt
/// hashes, or the bearer token): 401 with `WWW-Authenticate` otherwise, before any route runs.
///
/// bcrypt costs tens of milliseconds a check, which a scrape every few seconds should not pay:
/// a user and password that verified are remembered (their SHA-256, never the password) for the
/// process, as the exporter toolkit does. A reload that changes the users forgets them.
///
/// Timing tells nothing of which users exist: an unknown user's password is checked against a
/// configured user's hash (the one of the highest cost) and refused whatever the outcome, so it
/// costs what a known user's wrong password costs, as the exporter toolkit's dummy hash does; and
/// every refused password is answered no sooner than that check takes (the longest measured), so
/// a user whose hash is cheaper is not told apart either.
/// bcrypt runs on a `BlockingLane` (never on Swift's cooperative pool), on half the cores; when 64 more
/// wait, a request that needs bcrypt is answered 503 at once.
/// Threading: any thread (a mutex).
public final class ServeAuth: Sendable {
    private struct Settings {
        var users: [String: String] = [:]
        var token: [UInt8]?
        var verified: Set<[UInt8]> = []
        /// The hash an unknown user's password is checked against (nil without users).
        var decoy: String?
    }

    /// What a request's credentials get.
    enum Admission: Equatable {
        case admitted, refused
        /// Too many bcrypt checks wait already.
        case busy
    }

    private let settings = Mutex(Settings())
    /// The longest a check against the decoy took (ns): refusals are answered no sooner.
    private let decoyNanoseconds = Atomic<UInt64>(0)
    /// Half the cores (at least one) check passwords: a flood of guesses leaves the rest to scrapes.
    private let bcrypt = BlockingLane(label: "sonde.serve.bcrypt", limit: ProcessInfo.processInfo.activeProcessorCount / 2, maxWaiting: 64)

    public init(_ config: WebConfig?) {
        update(config)
    }

    /// The credentials of a reloaded config.
    public func update(_ config: WebConfig?) {
        let token = config?.bearerToken.map { Array(SHA256.hash(data: Data($0.utf8))) }
        let users = config?.basicAuthUsers ?? [:]
        let decoy = users.values.max { Self.cost(of: $0) < Self.cost(of: $1) }.map(Self.normalized)
        settings.withLock { $0 = Settings(users: users, token: token, verified: [], decoy: decoy) }
        decoyNanoseconds.store(0, ordering: .relaxed)
        // One check against the decoy, at once, so that the first refusal already waits as long.
        if let decoy {
            Task { [self] in
                if let (_, took) = try? await self.verify("sonde-decoy-calibration", hash: decoy) {
                    _ = self.decoyNanoseconds.max(took, ordering: .relaxed)
                }
            }
        }
    }

    /// Whether `password` matches `hash`, and how long bcrypt took (ns) on the lane's thread: the
    /// time waited for a turn is not counted, so a queue of guesses does not lengthen every refusal.
    /// - Throws: `BlockingLane.Busy` when too many checks wait.
    private func verify(_ password: String, hash: String) async throws -> (matches: Bool, nanoseconds: UInt64) {
        try await bcrypt.run {
            let started = DispatchTime.now().uptimeNanoseconds
            let matches = Bcrypt.verify(password, hash: hash)
            return (matches, DispatchTime.now().uptimeNanoseconds - started)
        }
    }

    public var required: Bool { settings.withLock { !$0.users.isEmpty || $0.token != nil } }

    /// Whether the `Authorization` header value lets a request in.
    func admits(_ authorization: String?) async -> Admission {
        let (users, token, verified, decoy) = settings.withLock { ($0.users, $0.token, $0.verified, $0.decoy) }
        guard !users.isEmpty || token != nil else { return .admitted }
        guard let authorization else { return .refused }
        // The scheme is case-insensitive (RFC 9110 §11.1).
        let scheme = authorization.prefix { $0 != " " }.lowercased()
        if scheme == "bearer", let token {
            let offered = Array(SHA256.hash(data: Data(authorization.dropFirst("Bearer ".count).utf8)))
            return Self.constantTimeEqual(offered, token) ? .admitted : .refused
        }
        guard scheme == "basic", authorization.count < 4096,
              let decoded = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
              let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":"), let decoy else { return .refused }
        let user = String(pair[..<colon]), password = String(pair[pair.index(after: colon)...])
        let hash = users[user].map(Self.normalized)
        let key = Array(SHA256.hash(data: Data((user + "\u{0}" + password + "\u{0}" + (hash ?? "")).utf8)))
        if hash != nil, verified.contains(key) { return .admitted }
        let matches: Bool, nanoseconds: UInt64
        do {
            (matches, nanoseconds) = try await verify(password, hash: hash ?? decoy)
        } catch {
            return .busy
        }
        if hash == nil || hash == decoy {
            _ = decoyNanoseconds.max(nanoseconds, ordering: .relaxed)
        }
        guard hash != nil, matches else {
            // A cheaper hash answers sooner: wait out the rest of a decoy check (off any thread).
            let decoyTime = decoyNanoseconds.load(ordering: .relaxed)
            if decoyTime > nanoseconds { try? await Task.sleep(nanoseconds: decoyTime - nanoseconds) }
            return .refused
        }
        settings.withLock { settings in if settings.verified.count < 10_000 { settings.verified.insert(key) } }
        return .admitted
    }

    /// `$2y$` is `$2b$` under another name (PHP's); the C library knows the latter.
    static func normalized(_ hash: String) -> String { hash.hasPrefix("$2y$") ? "$2b$" + hash.dropFirst(4) : hash }

    /// The cost of a bcrypt hash (`$2b$12$…` → 12; 0 when unreadable).
    static func cost(of hash: String) -> Int {
        let fields = hash.split(separator: "$", omittingEmptySubsequences: true)
        return fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
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
        switch await auth.admits(request.headers[.authorization]) {
        case .admitted:
            return try await next(request, context)
        case .refused:
            return Response(status: .unauthorized,
                            headers: [.wwwAuthenticate: "Basic realm=\"sonde serve\"", .contentType: "text/plain; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "Unauthorized\n")))
        case .busy:
            return ServeRoutes.busy("too many password checks under way; try again\n")
        }
    }
}
