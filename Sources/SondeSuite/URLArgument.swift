import Foundation
import SondeCore

/// The one check of a URL a user gives sonde to probe, soak, resume or audit (a command line's
/// URLs, a suite's or serve's `url` and `urls`) before anything runs: it must start with `scheme://`
/// (RFC 3986 §3.1) of a scheme the check speaks. Anything else is a usage error in one sentence,
/// with the URL the user most likely meant, and nothing is looked up or sent: `min` (left over
/// from `--timeout 5 min`) is not a host to resolve, and `127.0.0.1:8443/x` is not sent as plain
/// HTTP to a TLS port.
///
/// The suggestion for a URL without a scheme: `https://` when the port answers TLS, `http://`
/// otherwise, asked of loopback addresses only (`TLSAnswerProbe`: a ClientHello, nothing of the
/// URL); a name or any other address is neither resolved nor contacted, and gets `https://`
/// (`http://` for port 80). A scheme of the other family (`http://` for a soak, `wss://` for a
/// probe) gets its counterpart.
public enum URLArgument {
    /// The schemes a kind of check speaks: the plain one and the one over TLS.
    public struct Schemes: Sendable {
        public var plain: String
        public var secure: String
        /// The family's name in a sentence ("an http:// or https:// URL").
        var wanted: String { "\(plain == "http" ? "an" : "a") \(plain):// or \(secure):// URL" }
        var names: [String] { [plain, secure] }
    }

    /// http:// and https:// (probe, resume, audit).
    public static let http = Schemes(plain: "http", secure: "https")
    /// ws:// and wss:// (soak).
    public static let webSocket = Schemes(plain: "ws", secure: "wss")

    /// The scheme of `text`, lowercased, when it starts with `scheme://`; nil otherwise.
    public static func scheme(of text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
              scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        return scheme.lowercased()
    }

    /// nil when `text` starts with a scheme of `schemes`; else the problem for `key`, one sentence
    /// quoting `text` and saying what it likely meant.
    /// - Parameter answersTLS: whether host:port answers TLS (nil: not asked); only loopback
    ///   addresses are asked (`TLSAnswerProbe.answersTLS`).
    public static func problem(_ text: String, key: String, schemes: Schemes,
                               answersTLS: (String, Int?) -> Bool? = TLSAnswerProbe.answersTLS) -> SpecProblem? {
        guard let scheme = scheme(of: text) else {
            let rest = text.hasPrefix("//") ? String(text.dropFirst(2)) : text
            guard let (host, port) = hostAndPort(rest) else {
                return SpecProblem(key: key, "'\(text)' is not a URL: give \(schemes.wanted)")
            }
            let secure = answersTLS(host, port) ?? (port != 80)
            return SpecProblem(key: key, "'\(text)' is not a URL (it has no scheme): did you mean \(secure ? schemes.secure : schemes.plain)://\(rest)?")
        }
        if schemes.names.contains(scheme) { return nil }
        let rest = text[text.index(text.startIndex, offsetBy: scheme.count + 3)...]
        let counterpart: String? = switch scheme {
        case http.plain, webSocket.plain: schemes.plain
        case http.secure, webSocket.secure: schemes.secure
        default: nil
        }
        let refused = "'\(text)': \(scheme):// is not supported here, only \(schemes.plain):// and \(schemes.secure)://"
        guard let counterpart else { return SpecProblem(key: key, refused) }
        return SpecProblem(key: key, refused + ": did you mean \(counterpart)://\(rest)?")
    }

    /// The host and port of a URL's start without its scheme (`127.0.0.1:8443/x`, `[::1]/x`,
    /// `api.example.com/v1`), when it names a host: an address, `localhost`, a name with a dot
    /// whose last label is not a number, or any host with a port. nil for a word (`min`).
    static func hostAndPort(_ rest: String) -> (host: String, port: Int?)? {
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        let hostPart = authority.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? authority
        guard let (host, port) = Endpoint.split(hostPart), !host.isEmpty else { return nil }
        if port != nil || TLSAnswerProbe.isAddress(host) || host.lowercased() == "localhost" { return (host, port) }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count > 1, labels.allSatisfy({ !$0.isEmpty }),
              host.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }),
              let last = labels.last, last.unicodeScalars.contains(where: \.isASCIILetter)
        else { return nil }
        return (host, port)
    }
}

private extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
