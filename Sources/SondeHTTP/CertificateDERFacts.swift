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
public struct CertificateDERFacts: Equatable, Sendable {
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
        let alternatives = Self.alternativeNames(certificate)
        dnsNames = alternatives?.dnsNames ?? []
        ipAddresses = alternatives?.ipAddresses ?? []
    }

    /// The subject alternative name's DNS names and IP addresses (as text); nil when the
    /// certificate has no SAN extension (or it does not parse).
    public static func alternativeNames(_ certificate: Certificate) -> (dnsNames: [String], ipAddresses: [String])? {
        guard let names = (try? certificate.extensions.subjectAlternativeNames) ?? nil else { return nil }
        var dnsNames: [String] = []
        var ipAddresses: [String] = []
        for name in names {
            switch name {
            case .dnsName(let dns): dnsNames.append(dns)
            case .ipAddress(let octets): ipAddresses.append(ipText(Array(octets.bytes)))
            default: break
            }
        }
        return (dnsNames, ipAddresses)
    }

    /// An iPAddress entry's 4 or 16 bytes as text (`inet_ntop`); other lengths as hex.
    public static func ipText(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : nil
        guard let family else { return bytes.map { String(format: "%02x", $0) }.joined() }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return written == nil ? bytes.map { String(format: "%02x", $0) }.joined() : String(cString: text)
    }
}
