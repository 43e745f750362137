import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where an address literal points: the public internet, or a network of the auditing host's own
/// (its loopback, its links, private ranges). `ipv6.app-review` fetches a handed-out IPv6 literal
/// only when it is `global`, or in the same scope as the audited URL's own literal host (an audit
/// of `http://[::1]:8080/` may follow `http://[::1]:8080/next`): a server must not make the audit
/// reach the host's loopback, its link-local neighbours or a cloud's metadata address. An IPv4
/// literal is never fetched (`whyNotFetched`). Pure.
enum LiteralScope: String, Sendable, Equatable {
    case global
    /// 127.0.0.0/8, ::1, :: (which connects to the host itself).
    case loopback
    /// 169.254.0.0/16, fe80::/10.
    case linkLocal = "link-local"
    /// RFC 1918, 100.64.0.0/10 (CGN), fc00::/7 (ULA), fec0::/10 (site-local), 64:ff9b:1::/48 (local-use NAT64).
    case privateUse = "private"
    /// Unspecified, documentation, benchmarking, multicast, reserved and the like.
    case special

    /// The scope of an IPv4 (`a.b.c.d`) or IPv6 literal (no brackets, no zone id); nil for a name.
    /// An IPv6 address in 64:ff9b::/96, ::ffff:0:0/96 (mapped) or ::/96 (compatible) has the
    /// scope of the IPv4 address it embeds.
    static func of(_ literal: String) -> LiteralScope? {
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            return of(ipv4: withUnsafeBytes(of: &v4) { Array($0) })
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return nil }
        return of(ipv6: withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// RFC 6052's well-known NAT64 prefix, 64:ff9b::/96 (its first 12 bytes).
    static let nat64Prefix: [UInt8] = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]

    static func of(ipv4 a: [UInt8]) -> LiteralScope {
        guard a.count == 4 else { return .special }
        switch (a[0], a[1], a[2]) {
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (10, _, _), (192, 168, _): return .privateUse
        case (172, 16...31, _), (100, 64...127, _): return .privateUse
        case (0, _, _), (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113), (198, 18...19, _), (224...255, _, _): return .special
        default: return .global
        }
    }

    static func of(ipv6 b: [UInt8]) -> LiteralScope {
        guard b.count == 16 else { return .special }
        let first10Zero = b[0..<10].allSatisfy { $0 == 0 }
        if first10Zero, b[10] == 0xFF, b[11] == 0xFF { return of(ipv4: Array(b[12..<16])) }
        if b[0..<12].elementsEqual(nat64Prefix) { return of(ipv4: Array(b[12..<16])) }
        if first10Zero, b[10] == 0, b[11] == 0 {
            // ::, ::1, or an IPv4-compatible address (deprecated, RFC 4291 §2.5.5.1).
            if b[12..<15].allSatisfy({ $0 == 0 }), b[15] <= 1 { return .loopback }
            return of(ipv4: Array(b[12..<16]))
        }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return .linkLocal }
        if b[0] & 0xFE == 0xFC || (b[0] == 0xFE && b[1] & 0xC0 == 0xC0) { return .privateUse }
        if b[0...5].elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01]) { return .privateUse }
        if b[0] == 0xFF { return .special }
        return .global
    }

    /// Why `ipv6.app-review` does not fetch a handed-out URL whatever the network (nil: it may):
    /// an IPv4 literal (it fails on an IPv6-only network whatever it answers), or an IPv6 literal
    /// outside `global` unless the audited URL's host is a literal of the same scope.
    static func whyNotFetched(_ target: HandedOutURL, auditedHost: String?) -> String? {
        switch target.kind {
        case .name: return nil
        case .ipv4Literal: return "not fetched: an IPv4 literal fails on an IPv6-only network whatever it answers"
        case .ipv6Literal:
            guard let scope = of(target.host), scope != .global else { return nil }
            if let auditedHost, of(auditedHost) == scope { return nil }
            return "not fetched: [\(target.host)] is a \(scope.rawValue) address (the auditing host's own network, not a server's)"
        }
    }
}
