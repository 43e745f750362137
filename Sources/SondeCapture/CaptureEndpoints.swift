import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a run's flows go, for the capture filter that must name them: the addresses each URL's
/// host resolves to (a `--resolve host:port:address` entry wins, as in libcurl; else
/// getaddrinfo) and its port (default 443 for https and wss, else 80).
public enum CaptureEndpoints {
    /// The distinct (address, port) pairs of `urls`; a URL without a host, or whose host does not
    /// resolve, adds none.
    public static func resolve(urls: [String], resolve: [String]) -> [(address: String, port: Int)] {
        var endpoints: [(address: String, port: Int)] = []
        for url in urls {
            guard let parts = URL(string: url), let host = parts.host else { continue }
            let secure = ["https", "wss"].contains(parts.scheme?.lowercased() ?? "")
            let port = parts.port ?? (secure ? 443 : 80)
            endpoints += addresses(host: host, port: port, resolve: resolve).map { ($0, port) }
        }
        return endpoints
    }

    /// The addresses `host` resolves to for `port`, sorted and distinct.
    public static func addresses(host: String, port: Int, resolve: [String]) -> [String] {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        for entry in resolve {
            let parts = entry.split(separator: ":", maxSplits: 2).map(String.init)
            if parts.count == 3, parts[0] == bare, Int(parts[1]) == port {
                return [parts[2].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))]
            }
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        guard getaddrinfo(bare, String(port), &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var result: [String] = []
        var node = list
        while let current = node {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                result.append(String(cString: buffer))
            }
            node = current.pointee.ai_next
        }
        return Array(Set(result)).sorted()
    }
}
