import Crypto
import Foundation
import SwiftASN1
import Synchronization
import X509

/// What sonde reads from a peer certificate's DER (libcurl's CURLINFO_CERTINFO "Cert:" line, a
/// PEM block): the SHA-256 fingerprint (over the DER, as blackbox_exporter's `fingerprint_sha256`),
/// the subject alternative name's DNS names, and the subject and issuer as Go writes them
/// (`GoDistinguishedName`).
///
/// Nothing here traps on the server's bytes: a PEM that does not decode gives nil, a DER that does
/// not parse as a certificate still gives its fingerprint.
struct CertificateDERFacts: Equatable {
    /// 64 lowercase hex digits.
    var fingerprintSHA256: String
    /// nil when the certificate did not parse; [] when it has no DNS names.
    var dnsNames: [String]?
    /// nil when the certificate did not parse; [] when it has no IP addresses. As text (`::1`).
    var ipAddresses: [String]?
    var subjectDN: String?
    var issuerDN: String?

    /// Facts already read, by the PEM text they came from (a certificate's bytes never change,
    /// so neither do its facts): a probe of the same server again skips the base64, the hash and
    /// the parse. At most `cacheLimit` entries; the cache is emptied when full. Only PEMs of at
    /// most `maxCachedPEMLength` characters are kept (a server's certificate is a few KB): a
    /// hostile server rotating huge certificates cannot make the cache hold more than a few MB.
    private static let cache = Mutex<[String: CertificateDERFacts?]>([:])
    static let cacheLimit = 256
    static let maxCachedPEMLength = 16 * 1024

    /// `init(pem:)`, through the cache. Any thread.
    static func cached(pem: String) -> CertificateDERFacts? {
        guard pem.utf8.count <= maxCachedPEMLength else { return CertificateDERFacts(pem: pem) }
        if let known = cache.withLock({ $0[pem] }) { return known }
        let facts = CertificateDERFacts(pem: pem)
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[pem] = .some(facts)
        }
        return facts
    }

    /// The facts of the PEM block libcurl wrote ("-----BEGIN CERTIFICATE-----…"); nil when it is not one.
    init?(pem: String) {
        guard let document = try? PEMDocument(pemString: pem), document.discriminator == "CERTIFICATE" else { return nil }
        self.init(der: document.derBytes)
    }

    init(der: [UInt8]) {
        fingerprintSHA256 = GoDistinguishedName.hex(SHA256.hash(data: der))
        guard let certificate = try? Certificate(derEncoded: der) else { return }
        subjectDN = GoDistinguishedName.string(certificate.subject)
        issuerDN = GoDistinguishedName.string(certificate.issuer)
        let alternatives = (try? certificate.extensions.subjectAlternativeNames) ?? nil
        dnsNames = alternatives.map { names in
            names.compactMap { name -> String? in
                if case .dnsName(let dns) = name { return dns }
                return nil
            }
        } ?? []
        ipAddresses = alternatives.map { names in
            names.compactMap { name -> String? in
                if case .ipAddress(let octets) = name { return Self.ipText(Array(octets.bytes)) }
                return nil
            }
        } ?? []
    }

    /// An iPAddress entry's 4 or 16 bytes as text (`inet_ntop`); other lengths as hex.
    static func ipText(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : nil
        guard let family else { return bytes.map { String(format: "%02x", $0) }.joined() }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return written == nil ? bytes.map { String(format: "%02x", $0) }.joined() : String(cString: text)
    }
}
