/// What one real client puts in its TLS ClientHello, and what it then accepts of the server's
/// certificate: the facts `ClientSimulator` replays (`TLSClientCatalog` holds sonde's table).
/// Code points are IANA's (TLS Cipher Suites, Supported Groups, SignatureScheme registries).
public struct TLSClientProfile: Sendable {
    /// Whose client it is, as `--clients` names it.
    public enum Platform: String, Sendable, CaseIterable {
        case iOS = "ios"
        case android
        /// A library used as the control (curl on OpenSSL): never in the target set.
        case library
    }

    /// "ios-17", "android-10", "okhttp-modern": unique in the catalog.
    public var id: String
    public var platform: Platform
    /// What the client is ("iOS 17 URLSession (ATS)").
    public var name: String
    /// The platform versions this offer stands for, as `[major, minor]` (inclusive; `last` nil:
    /// every later one). `--clients ios>=15` targets a profile whose range reaches 15 or later.
    public var firstOS: [Int]
    public var lastOS: [Int]?
    /// Protocol versions offered (0x0304 TLS 1.3 … 0x0301 TLS 1.0), highest first, never empty.
    public var versions: [UInt16]
    /// Cipher suites in the client's order.
    public var suites: [UInt16]
    /// supported_groups in the client's order.
    public var groups: [UInt16]
    /// The groups the first ClientHello carries a key share for (TLS 1.3 only), a subset of `groups`.
    public var keyShareGroups: [UInt16]
    /// signature_algorithms in the client's order (a duplicate is kept: Apple's list has one).
    public var signatureSchemes: [UInt16]
    /// ALPN protocols, in order; empty: no ALPN extension.
    public var alpn: [String]
    /// What the client then requires of the certificates (ATS for URLSession), nil: nothing beyond the handshake.
    var certificatePolicy: CertificatePolicy?
    /// Where each fact comes from (public pages and source files).
    public var sources: [String]

    /// The lowest and highest versions offered.
    public var lowestVersion: UInt16 { versions.min() ?? 0x0303 }
    public var highestVersion: UInt16 { versions.max() ?? 0x0303 }
    public var offersTLS13: Bool { versions.contains(0x0304) }

    /// Whether some platform version this profile stands for is `version` or later.
    public func reaches(_ version: [Int]) -> Bool {
        guard let lastOS else { return true }
        return !Self.less(lastOS, version)
    }

    /// `a < b`, component by component (missing components are 0).
    static func less(_ a: [Int], _ b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? a[index] : 0, right = index < b.count ? b[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
