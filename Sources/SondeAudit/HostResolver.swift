import Foundation
import SondeCore
import Synchronization

/// A host's addresses as a client would get them: from a `--resolve`-style entry
/// (`HOST:PORT:ADDRESS[,ADDRESS]…`, the form CURLOPT_RESOLVE takes, which then replaces DNS for
/// that host and port exactly as it does for libcurl), else from the system resolver
/// (`getaddrinfo`, AF_UNSPEC: DNS and /etc/hosts, what URLSession and OkHttp's default `Dns` ask).
struct HostAddresses: Sendable, Equatable {
    /// IPv4 addresses (A), as text.
    var v4: [String] = []
    /// IPv6 addresses (AAAA), as text.
    var v6: [String] = []
    /// "a --resolve entry" or "the system resolver (getaddrinfo)".
    var source: String
    /// Why nothing was found (the resolver's error, or the time bound), nil when it answered.
    var error: String?
    /// IPv6 addresses the audit's own requests went to that the look-up did not return (in `v6`
    /// too): libcurl answers `localhost` itself with ::1 and 127.0.0.1 (RFC 6761 §6.3), whatever
    /// getaddrinfo says.
    var reachedOnly: [String] = []

    /// The IPv6 addresses inside the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052 §2.1): made by
    /// a DNS64 resolver on this machine's network, not published by the host.
    var synthesizedV6: [String] { v6.filter(HostResolver.isNAT64WellKnown) }
}

/// Looks a host up, bounded in time. Stateless; `resolve` blocks the calling thread for at most
/// `timeoutMs` (getaddrinfo cannot be cancelled: a lookup still running then finishes on its own
/// thread and its answer is dropped).
enum HostResolver {
    enum Kind: Sendable, Equatable {
        case ipv4Literal, ipv6Literal, name
    }

    /// Whether `host` is an IPv4 literal, an IPv6 literal (without brackets) or a name.
    static func kind(of host: String) -> Kind {
        if parse(host, family: AF_INET) != nil { return .ipv4Literal }
        if parse(host, family: AF_INET6) != nil { return .ipv6Literal }
        return .name
    }

    /// A dotted-quad IPv4 address (inet_pton's strict form: four decimal parts 0…255), nil otherwise.
    static func ipv4(_ text: Substring) -> String? {
        parse(String(text), family: AF_INET)
    }

    /// Whether two address texts name the same address (`::1` and `0:0::1` do); false when either
    /// is not an address.
    static func sameAddress(_ a: String, _ b: String) -> Bool {
        let strip = { (text: String) in text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text }
        let (x, y) = (strip(a), strip(b))
        var first = in6_addr(), second = in6_addr()
        if inet_pton(AF_INET6, x, &first) == 1, inet_pton(AF_INET6, y, &second) == 1 {
            return withUnsafeBytes(of: &first) { Array($0) } == withUnsafeBytes(of: &second) { Array($0) }
        }
        var v4a = in_addr(), v4b = in_addr()
        guard inet_pton(AF_INET, x, &v4a) == 1, inet_pton(AF_INET, y, &v4b) == 1 else { return false }
        return v4a.s_addr == v4b.s_addr
    }

    /// Whether an IPv6 address is in 64:ff9b::/96 (RFC 6052's well-known NAT64 prefix).
    static func isNAT64WellKnown(_ address: String) -> Bool {
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return false }
        let prefix: [UInt8] = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
        return withUnsafeBytes(of: &bytes) { Array($0.prefix(12)) } == prefix
    }

    /// The addresses of `host` (a name) for `port`: the first `entries` item naming HOST:PORT wins
    /// (case-insensitive host; a leading `+` is dropped, `-` entries are ignored, brackets around an
    /// IPv6 address are removed); otherwise getaddrinfo, waited for at most `timeoutMs`.
    static func resolve(_ host: String, port: Int, entries: [String], timeoutMs: Int) -> HostAddresses {
        if let listed = addresses(in: entries, host: host, port: port) {
            var result = HostAddresses(source: "a --resolve entry")
            for address in listed {
                if parse(address, family: AF_INET) != nil { result.v4.append(address) } else if parse(address, family: AF_INET6) != nil { result.v6.append(address) }
            }
            return result
        }
        return systemLookup(host, timeoutMs: timeoutMs)
    }

    /// The addresses an entry list gives `host:port`, nil when none names it.
    static func addresses(in entries: [String], host: String, port: Int) -> [String]? {
        for raw in entries {
            var entry = Substring(raw)
            if entry.hasPrefix("-") { continue }
            if entry.hasPrefix("+") { entry = entry.dropFirst() }
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].caseInsensitiveCompare(host) == .orderedSame || parts[0] == "*",
                  Int(parts[1]) == port else { continue }
            return parts[2].split(separator: ",").map { item in
                let trimmed = item.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("[") && trimmed.hasSuffix("]") ? String(trimmed.dropFirst().dropLast()) : trimmed
            }.filter { !$0.isEmpty }
        }
        return nil
    }

    /// getaddrinfo(AF_UNSPEC, SOCK_STREAM) on its own thread; at most 32 addresses kept.
    private static func systemLookup(_ host: String, timeoutMs: Int) -> HostAddresses {
        let source = "the system resolver (getaddrinfo)"
        let box = Mutex<HostAddresses?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.startNamed("sonde-resolve") {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>? = nil
            let status = getaddrinfo(host, nil, &hints, &list)
            var result = HostAddresses(source: source)
            if status != 0 {
                result.error = String(cString: gai_strerror(status))
            } else {
                var node = list
                var seen = 0
                while let current = node, seen < 32 {
                    seen += 1
                    if let text = numericHost(current.pointee) {
                        if current.pointee.ai_family == AF_INET, !result.v4.contains(text) { result.v4.append(text) }
                        if current.pointee.ai_family == AF_INET6, !result.v6.contains(text) { result.v6.append(text) }
                    }
                    node = current.pointee.ai_next
                }
                freeaddrinfo(list)
            }
            box.withLock { $0 = result }
            done.signal()
        }
        let bound = max(1, min(timeoutMs, 30_000))
        guard done.wait(timeout: .now() + .milliseconds(bound)) == .success, let result = box.withLock({ $0 }) else {
            return HostAddresses(source: source, error: "no answer within \(bound) ms")
        }
        return result
    }

    private static func numericHost(_ info: addrinfo) -> String? {
        guard let address = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address in canonical text when `text` is one of `family`, nil otherwise.
    private static func parse(_ text: String, family: Int32) -> String? {
        if family == AF_INET {
            var address = in_addr()
            guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
            return text
        }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return text
    }
}
