import Foundation
import SondeCore
import SondeHTTP

/// Simulates each client profile's handshake with one endpoint: sonde's own ClientHello for the
/// profile (`ClientHelloEncoder`, sonde's own key shares) over a TCP connection libcurl opens
/// (`RawTCPConnection`), the server's answer read up to ServerHelloDone (TLS 1.2) or
/// CertificateVerify (TLS 1.3, decrypted with `TLS13FlightDecryptor`), one HelloRetryRequest
/// answered; nothing more is sent (no Finished) and the connection is closed. Then the profile's
/// certificate policy on the leaf. The verdict is the client's: a suite, version, group or
/// signature scheme the profile did not offer is a refusal, as the client would abort.
///
/// Blocks the calling thread; handshakes run `width` at once on `ProbePool` threads.
struct ClientSimulator: Sendable {
    var width: Int
    /// Budget of all the profiles' handshakes (ms): none starts after it.
    var budgetMs: Int

    func simulate(_ profiles: [TLSClientProfile], endpoint: TLSEndpoint, targets: ClientTargetSet) -> [AuditClientSimulation] {
        let deadline = monotonicMicroseconds() + Int64(budgetMs) * 1000
        let results = ProbePool.map(profiles, width: width, deadline: deadline) { profile in
            Self.handshake(profile, endpoint: endpoint)
        }
        return zip(profiles, results).map { profile, result in
            var simulation = result ?? AuditClientSimulation(client: profile.id, name: profile.name, platform: profile.platform.rawValue,
                                                             target: false, outcome: .notTried, reason: "not tried (time budget)")
            simulation.target = targets.contains(profile)
            return simulation
        }
    }

    /// One profile's handshake, bounded by the endpoint's connect and probe timeouts.
    static func handshake(_ profile: TLSClientProfile, endpoint: TLSEndpoint) -> AuditClientSimulation {
        let started = monotonicMicroseconds()
        var result = AuditClientSimulation(client: profile.id, name: profile.name, platform: profile.platform.rawValue, target: false,
                                           outcome: .refused)
        attempt(profile, endpoint: endpoint, started: started, into: &result)
        result.durationMs = Double(monotonicMicroseconds() - started) / 1000
        return result
    }

    private static func attempt(_ profile: TLSClientProfile, endpoint: TLSEndpoint, started: Int64, into result: inout AuditClientSimulation) {
        let connection: RawTCPConnection
        do {
            connection = try RawTCPConnection(host: endpoint.host, port: endpoint.port, resolve: endpoint.resolve,
                                              connectTimeoutMs: endpoint.connectTimeoutMs)
        } catch {
            result.outcome = error.code == .connectTimeout ? .timedOut : .unreachable
            result.reason = "no connection: \(error.message)"
            return
        }
        defer { connection.close() }
        var flight = ServerFlight(connection: connection, deadline: started + Int64(endpoint.probeTimeoutMs) * 1000)
        do {
            try run(profile, host: endpoint.host, flight: &flight, into: &result)
        } catch let failure as ServerFlight.Failure {
            switch failure {
            case .alert(let code):
                result.alert = TLSCodePoints.alert(code)
                result.reason = "alert \(TLSCodePoints.alert(code))"
            case .closed: result.reason = "the server closed the connection"
            case .timedOut:
                result.outcome = .timedOut
                result.reason = "no answer in \(endpoint.probeTimeoutMs) ms"
            }
        } catch {
            result.reason = "malformed answer: \(error)"
        }
    }

    /// The handshake's messages, filling `result`; throws when the server's answer ends it.
    private static func run(_ profile: TLSClientProfile, host: String, flight: inout ServerFlight,
                            into result: inout AuditClientSimulation) throws {
        var shares: [UInt16: TLSKeyShare] = [:]
        for group in profile.keyShareGroups where profile.offersTLS13 { shares[group] = TLSKeyShare(group: group) }
        let random = Self.randomBytes(32), sessionID = profile.offersTLS13 ? Self.randomBytes(32) : []
        func hello(_ groups: [UInt16], cookie: [UInt8]?) -> [UInt8] {
            ClientHelloEncoder.handshake(profile, serverName: host, shares: groups.compactMap { group in shares[group].map { (group, $0.publicBytes) } },
                                         random: random, sessionID: sessionID, cookie: cookie)
        }
        let first = hello(profile.keyShareGroups, cookie: nil)
        try flight.send(first)
        var transcript = first
        var message = try flight.nextHandshake()
        guard message.type == 2 else { throw TLSParseError(reason: "handshake message \(message.type) before ServerHello") }
        var serverHello = try TLSServerMessages.serverHello(message.body)
        if serverHello.helloRetry {
            result.helloRetry = true
            guard let group = serverHello.group, profile.groups.contains(group), shares[group] == nil else {
                result.reason = "HelloRetryRequest for \(serverHello.group.map(TLSCodePoints.group) ?? "no group"), which the client did not offer"
                return
            }
            guard let share = TLSKeyShare(group: group) else {
                // RFC 8446 §4.1.4: the ServerHello after an HRR keeps its suite; sonde has no key
                // for this group, so the certificate is not read.
                accept(profile, version: serverHello.version, suite: serverHello.suite, into: &result)
                if result.reason == nil { result.group = TLSCodePoints.group(group) }
                return
            }
            shares = [group: share]
            let second = hello([group], cookie: serverHello.cookie)
            try flight.send(second)
            let hash = TLS13FlightDecryptor.hash(suite: serverHello.suite, first)
            transcript = [254, 0, 0, UInt8(hash.count)] + hash + message.raw + second
            message = try flight.nextHandshake()
            guard message.type == 2 else { throw TLSParseError(reason: "handshake message \(message.type) after HelloRetryRequest") }
            serverHello = try TLSServerMessages.serverHello(message.body)
            guard !serverHello.helloRetry else {
                result.reason = "a second HelloRetryRequest"
                return
            }
        }
        transcript += message.raw
        accept(profile, version: serverHello.version, suite: serverHello.suite, into: &result)
        guard result.reason == nil else { return }
        if serverHello.version == 0x0304 {
            guard let group = serverHello.group, let share = shares[group] else {
                result.outcome = .refused
                result.reason = "the server's key share is for a group the client sent no share for"
                return
            }
            result.group = TLSCodePoints.group(group)
            let secret = try share.sharedSecret(with: serverHello.share)
            guard let decryptor = TLS13FlightDecryptor(suite: serverHello.suite, sharedSecret: secret, transcript: transcript) else { return }
            flight.decryptor = decryptor
        }
        try readCertificateFlight(profile, tls13: serverHello.version == 0x0304, suite: serverHello.suite, flight: &flight, into: &result)
    }

    /// Sets version and suite, and refuses what the client did not offer.
    private static func accept(_ profile: TLSClientProfile, version: UInt16, suite: UInt16, into result: inout AuditClientSimulation) {
        result.version = TLSCodePoints.version(version)
        result.suite = TLSCodePoints.suite(suite)
        if !profile.versions.contains(version) {
            result.reason = "the server chose \(TLSCodePoints.version(version)), which the client does not offer"
        } else if !profile.suites.contains(suite) {
            result.reason = "the server chose \(TLSCodePoints.suite(suite)), which the client does not offer"
        } else {
            result.outcome = .connected
        }
        if result.reason != nil { result.outcome = .refused }
    }

    /// Certificate, ServerKeyExchange (1.2), CertificateVerify (1.3), up to ServerHelloDone or CertificateVerify.
    private static func readCertificateFlight(_ profile: TLSClientProfile, tls13: Bool, suite: UInt16, flight: inout ServerFlight,
                                              into result: inout AuditClientSimulation) throws {
        let catalogued = (CipherSuiteCatalog.tls13 + CipherSuiteCatalog.legacy).first { $0.code == suite }
        var leafKey: ServedCertificate.Key?
        for _ in 0..<16 {
            let message = try flight.nextHandshake()
            switch message.type {
            case 11:
                if let der = try TLSServerMessages.leaf(message.body, tls13: tls13), let parsed = try? ServedCertificate.parse(der: der) {
                    leafKey = parsed.key
                    result.leafKey = parsed.key.description
                }
            case 12 where !tls13:
                guard let kind = catalogued?.keyExchange, kind == .ecdhe || kind == .dhe else { continue }
                let exchange = try TLSServerMessages.serverKeyExchange(message.body, ecdhe: kind == .ecdhe)
                result.group = exchange.group
                result.signatureScheme = TLSCodePoints.scheme(exchange.scheme)
                if !profile.signatureSchemes.contains(exchange.scheme) {
                    refuse(&result, "the server signed with \(TLSCodePoints.scheme(exchange.scheme)), which the client does not offer")
                } else if kind == .ecdhe, let code = TLSCodePoints.groups.first(where: { $0.value == exchange.group })?.key,
                          !profile.groups.contains(code) {
                    refuse(&result, "the server chose the group \(exchange.group), which the client does not offer")
                }
            case 15 where tls13:
                let scheme = try TLSServerMessages.certificateVerifyScheme(message.body)
                result.signatureScheme = TLSCodePoints.scheme(scheme)
                if !profile.signatureSchemes.contains(scheme) {
                    refuse(&result, "the server signed with \(TLSCodePoints.scheme(scheme)), which the client does not offer")
                }
                applyPolicy(profile, leafKey, &result)
                return
            case 14 where !tls13:
                applyPolicy(profile, leafKey, &result)
                return
            default: continue
            }
        }
    }

    private static func applyPolicy(_ profile: TLSClientProfile, _ key: ServedCertificate.Key?, _ result: inout AuditClientSimulation) {
        guard result.outcome == .connected, let policy = profile.certificatePolicy, let key, let refusal = policy.refusal(of: key) else { return }
        result.outcome = .policyRefused
        result.reason = "the handshake completes, but \(policy.client) refuses the certificate: \(refusal)"
    }

    private static func refuse(_ result: inout AuditClientSimulation, _ reason: String) {
        guard result.outcome == .connected else { return }
        result.outcome = .refused
        result.reason = reason
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

/// The server's side of one simulated handshake: records read from the connection (at most
/// `maxBytes` in all), split into handshake messages; TLS 1.3's encrypted records opened once
/// `decryptor` is set. Alerts, a close and the deadline end it (`Failure`).
struct ServerFlight {
    enum Failure: Error { case alert(UInt8), closed, timedOut }

    let connection: RawTCPConnection
    /// Monotonic µs after which nothing more is read.
    let deadline: Int64
    var decryptor: TLS13FlightDecryptor?
    private var buffer: [UInt8] = []
    private var handshake: [UInt8] = []
    private var total = 0
    /// A server flight larger than this (certificates included) is not read further.
    static let maxBytes = 256 * 1024

    init(connection: RawTCPConnection, deadline: Int64) {
        self.connection = connection
        self.deadline = deadline
    }

    func send(_ handshakeMessage: [UInt8]) throws {
        guard connection.send(ClientHelloEncoder.records(handshakeMessage), deadline: deadline) else {
            throw monotonicMicroseconds() >= deadline ? Failure.timedOut : Failure.closed
        }
    }

    /// The next handshake message: its type, its body and its raw bytes (header included).
    mutating func nextHandshake() throws -> (type: UInt8, body: [UInt8], raw: [UInt8]) {
        while true {
            if handshake.count >= 4 {
                let length = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
                if handshake.count >= 4 + length {
                    let raw = Array(handshake[..<(4 + length)])
                    handshake.removeFirst(4 + length)
                    return (raw[0], Array(raw[4...]), raw)
                }
            }
            try readRecord()
        }
    }

    private mutating func readRecord() throws {
        while true {
            if buffer.count >= 5 {
                let length = Int(buffer[3]) << 8 | Int(buffer[4])
                guard length <= 16_384 + 256 else { throw TLSParseError(reason: "a record of \(length) bytes") }
                if buffer.count >= 5 + length {
                    let header = Array(buffer[..<5]), fragment = Array(buffer[5..<(5 + length)])
                    buffer.removeFirst(5 + length)
                    switch header[0] {
                    case 21:
                        throw Failure.alert(fragment.count >= 2 ? fragment[1] : 0)
                    case 20:
                        continue
                    case 22:
                        handshake += fragment
                        return
                    case 23:
                        guard var opener = decryptor else { throw TLSParseError(reason: "an application_data record before the handshake keys") }
                        let inner = try opener.open(header: header, fragment: fragment)
                        decryptor = opener
                        if inner.type == 21 { throw Failure.alert(inner.content.count >= 2 ? inner.content[1] : 0) }
                        if inner.type == 22 { handshake += inner.content }
                        return
                    default:
                        throw TLSParseError(reason: "a record of type \(header[0]) in the handshake")
                    }
                }
            }
            guard total < Self.maxBytes else { throw TLSParseError(reason: "more than \(Self.maxBytes) bytes before the flight ended") }
            guard let chunk = connection.receive(deadline: deadline) else { throw Failure.timedOut }
            guard !chunk.isEmpty else { throw Failure.closed }
            total += chunk.count
            buffer += chunk
        }
    }
}
