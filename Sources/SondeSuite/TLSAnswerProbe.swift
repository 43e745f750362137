import Foundation
import Synchronization
import SondeCore

/// Whether a loopback port answers TLS, for `URLArgument`'s suggestion (`https://` or
/// `http://`) when a URL was given without a scheme. Asked without anything of an HTTP request:
/// one TCP connection, one TLS ClientHello (TLS 1.2 and 1.3 offered, no server name, random
/// bytes where keys go: nothing of the user's URL, path or headers), and the first bytes of the
/// answer: a handshake or alert record (content type 22 or 21, RFC 8446 §5.1) is TLS; anything
/// else (an HTTP server's `HTTP/1.1 400`, a close, silence) is not. The connection is closed there.
///
/// Only loopback addresses are asked (127.0.0.0/8, ::1, and `localhost` as 127.0.0.1 then ::1,
/// RFC 6761 §6.3, without a resolver): a usage error must not reach another machine. Each
/// question is bounded by `timeoutMs` in all; answers are kept per address and port, and at most
/// `maxQuestions` are asked per process (a suite of many such URLs costs seconds at most).
public enum TLSAnswerProbe {
    /// The bound of one question, connect to answer (ms).
    static let timeoutMs = 1_000
    /// Questions asked per process at most; later ones get nil (no answer).
    static let maxQuestions = 8

    private static let asked = Mutex<[String: Bool]>([:])

    /// true when `host`'s `port` (443 when nil) answers a ClientHello with TLS, false when it
    /// answers otherwise or not at all; nil when `host` is not a loopback address (not asked).
    public static func answersTLS(host: String, port: Int?) -> Bool? {
        let port = port ?? 443
        guard (1...65535).contains(port) else { return nil }
        let addresses = loopbackAddresses(host)
        guard !addresses.isEmpty else { return nil }
        let key = "\(host.lowercased()) \(port)"
        let known: Bool?? = asked.withLock { asked in
            if let answer = asked[key] { return .some(answer) }
            return asked.count >= maxQuestions ? .some(nil) : .none
        }
        if let known { return known }
        let deadline = monotonicMicroseconds() + Int64(timeoutMs) * 1000
        var answer = false
        for address in addresses where !answer {
            answer = ask(address, port: port, deadline: deadline)
        }
        asked.withLock { $0[key] = answer }
        return answer
    }

    /// Whether `host` is an IPv4 or IPv6 literal (brackets removed).
    public static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The loopback socket addresses `host` names, without a resolver: an address in 127.0.0.0/8,
    /// ::1, or `localhost` (both); none for anything else.
    static func loopbackAddresses(_ host: String) -> [LoopbackAddress] {
        let name = host.lowercased()
        if name == "localhost" || name == "localhost." {
            return [LoopbackAddress(text: "127.0.0.1", family: 4), LoopbackAddress(text: "::1", family: 6)]
        }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 ? [LoopbackAddress(text: host, family: 4)] : [] }
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: v6) { Array($0) } == withUnsafeBytes(of: in6addr_loopback) { Array($0) } ? [LoopbackAddress(text: host, family: 6)] : []
        }
        return []
    }

    /// A numeric loopback address and its family (4 or 6).
    struct LoopbackAddress {
        let text: String
        let family: Int
    }

    /// One question: connect, send the ClientHello, read the first bytes; false on any failure
    /// or when `deadline` (monotonic µs) passes.
    private static func ask(_ address: LoopbackAddress, port: Int, deadline: Int64) -> Bool {
        guard var target = NumericSocketAddress(address.text, family: address.family, port: port) else { return false }
        let socket = Glibc.socket(target.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        let connected = target.connect(socket)
        if connected != 0 {
            guard errno == EINPROGRESS, wait(socket, for: Int16(POLLOUT), until: deadline) else { return false }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else { return false }
        }
        let hello = clientHello()
        let sent = hello.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == hello.count else { return false }
        var answer = [UInt8](repeating: 0, count: 2)
        var received = 0
        while received < 2 {
            guard wait(socket, for: Int16(POLLIN), until: deadline) else { return false }
            let count = answer.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return recv(socket, base + received, 2 - received, 0)
            }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return false }
            received += count
        }
        return (answer[0] == 22 || answer[0] == 21) && answer[1] == 3
    }

    /// Waits for `events` on `socket` until `deadline` (monotonic µs).
    private static func wait(_ socket: Int32, for events: Int16, until deadline: Int64) -> Bool {
        while true {
            let left = (deadline - monotonicMicroseconds()) / 1000
            guard left > 0 else { return false }
            var entry = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(left))
            if ready < 0 && errno == EINTR { continue }
            return ready > 0 && entry.revents & events != 0
        }
    }

    /// A TLS ClientHello record (RFC 8446 §4.1.2, RFC 5246 §7.4.1.2) offering TLS 1.3 and 1.2 with
    /// the common suites and groups, an x25519 key share of random bytes, and no server name.
    static func clientHello() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func vector16(_ bytes: [UInt8]) -> [UInt8] { u16(bytes.count) + bytes }
        func vector8(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count)] + bytes }
        func extensionBlock(_ type: Int, _ body: [UInt8]) -> [UInt8] { u16(type) + vector16(body) }
        let suites: [Int] = [0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035]
        let groups: [Int] = [0x001D, 0x0017, 0x0018]
        let signatures: [Int] = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601, 0x0201]
        let extensions = extensionBlock(0x000A, vector16(groups.flatMap(u16)))         // supported_groups
            + extensionBlock(0x000B, vector8([0]))                                     // ec_point_formats: uncompressed
            + extensionBlock(0x000D, vector16(signatures.flatMap(u16)))                // signature_algorithms
            + extensionBlock(0x002B, vector8(u16(0x0304) + u16(0x0303)))               // supported_versions
            + extensionBlock(0x0033, vector16(u16(0x001D) + vector16(random(32))))     // key_share: x25519
        let body = u16(0x0303) + random(32) + vector8(random(32)) + vector16(suites.flatMap(u16)) + vector8([0]) + vector16(extensions)
        let handshake = [1, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
        return [22, 3, 1] + u16(handshake.count) + handshake
    }
}
