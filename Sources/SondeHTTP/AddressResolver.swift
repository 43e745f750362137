import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// Resolves a host before a connection pinned to the address (serve's blackbox probers, the way
/// blackbox_exporter does; a `GRPCUnaryCall`'s address): the preferred IP family first, the other
/// when `fallback` allows, timed. Blocking (getaddrinfo): call it from a thread of its own.
public enum AddressResolver {
    public struct Resolved: Equatable, Sendable {
        /// The numeric address (`127.0.0.1`, `::1`).
        public var address: String
        /// 4 or 6.
        public var family: Int
        /// How long the lookup took (s).
        public var seconds: Double

        /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
        public var bytes: [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 16)
            guard inet_pton(family == 4 ? AF_INET : AF_INET6, address, &buffer) == 1 else { return [] }
            return Array(buffer.prefix(family == 4 ? 4 : 16))
        }
    }

    /// - Parameter preferred: `ip4` or `ip6`.
    public static func resolve(host: String, preferred: String, fallback: Bool) -> Result<Resolved, TaskError> {
        let started = monotonicMicroseconds()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        let seconds = Double(monotonicMicroseconds() - started) / 1e6
        guard status == 0 else {
            return .failure(TaskError(code: .dnsFailure, message: "could not resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        var v4: String?, v6: String?
        var node = list
        while let current = node {
            if let address = numericAddress(current.pointee) {
                if current.pointee.ai_family == AF_INET, v4 == nil { v4 = address }
                if current.pointee.ai_family == AF_INET6, v6 == nil { v6 = address }
            }
            node = current.pointee.ai_next
        }
        let preferredAddress = preferred == "ip4" ? v4.map { ($0, 4) } : v6.map { ($0, 6) }
        let otherAddress = preferred == "ip4" ? v6.map { ($0, 6) } : v4.map { ($0, 4) }
        guard let (address, family) = preferredAddress ?? (fallback ? otherAddress : nil) else {
            return .failure(TaskError(code: .dnsFailure, message: "\(host) has no \(preferred) address" + (fallback ? "" : " (ip_protocol_fallback is off)")))
        }
        return .success(Resolved(address: address, family: family, seconds: seconds))
    }

    private static func numericAddress(_ info: addrinfo) -> String? {
        guard let address = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(cString: buffer)
    }
}
