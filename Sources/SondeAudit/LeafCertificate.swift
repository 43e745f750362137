import Foundation
import SondeCore
import SondeHTTP
import SwiftASN1
import X509

/// What the audit's certificate rules read from the server's leaf certificate: its names, EKU,
/// validity and embedded SCTs (swift-certificates, from the PEM libcurl's CURLINFO_CERTINFO gives),
/// and its key and signature (from the handshake's OpenSSL, `PeerFacts`: swift-crypto refuses to
/// parse an RSA key under 2048 bits, so a certificate carrying one does not parse with
/// swift-certificates; its names then come from OpenSSL's text lines in CURLINFO_CERTINFO).
struct LeafCertificate: Sendable, Equatable {
    /// The subject's common names.
    var commonNames: [String]
    /// The SAN's DNS names; nil when the certificate has no SAN extension.
    var dnsNames: [String]?
    /// The SAN's IP addresses as text.
    var ipAddresses: [String]?
    /// Whether an extendedKeyUsage extension is present, and whether it holds serverAuth.
    var hasExtendedKeyUsage: Bool
    var serverAuth: Bool
    var notBefore: Date?
    var notAfter: Date?
    /// SCTs in the embedded SCT list extension (RFC 6962 §3.3); 0 without the extension, nil when
    /// the list did not parse.
    var embeddedSCTs: Int?
    /// Where the names came from: "swift-certificates" or "openssl-text".
    var source: String

    /// The OID of the embedded SCT list extension (RFC 6962 §3.3).
    static let sctListOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 2]

    /// Validity in days as Apple counts it: notBefore through notAfter inclusive, a day being 86 400 s,
    /// any part of a further day counting as one (support.apple.com/102028).
    var validityDays: Int? {
        guard let notBefore, let notAfter else { return nil }
        let seconds = notAfter.timeIntervalSince(notBefore) + 1
        guard seconds.isFinite, seconds > 0, seconds < 1e12 else { return nil }
        return Int((seconds / 86_400).rounded(.up))
    }

    /// From one certificate's CURLINFO_CERTINFO lines; nil when they hold no certificate at all.
    init?(certinfo lines: [String]) {
        let fields = CertificateInfoParser.fields(lines)
        if let pem = fields["Cert"], let document = try? PEMDocument(pemString: pem), document.discriminator == "CERTIFICATE",
           let certificate = try? Certificate(derEncoded: document.derBytes) {
            self.init(certificate)
            return
        }
        guard fields["Subject"] != nil else { return nil }
        self.init(openSSLText: fields)
    }

    init(_ certificate: Certificate) {
        commonNames = certificate.subject.flatMap { $0 }.filter { $0.type == .RDNAttributeType.commonName }.map { String(describing: $0.value) }
        let names = CertificateDERFacts.alternativeNames(certificate)
        dnsNames = names?.dnsNames
        ipAddresses = names?.ipAddresses
        let usage = (try? certificate.extensions.extendedKeyUsage) ?? nil
        hasExtendedKeyUsage = usage != nil
        serverAuth = usage?.contains(.serverAuth) ?? false
        notBefore = certificate.notValidBefore
        notAfter = certificate.notValidAfter
        if let sct = certificate.extensions[oid: Self.sctListOID] {
            embeddedSCTs = Self.countSCTs(extensionValue: Array(sct.value))
        } else {
            embeddedSCTs = 0
        }
        source = "swift-certificates"
    }

    /// From OpenSSL's text (CURLINFO_CERTINFO's "Subject", "X509v3 Subject Alternative Name",
    /// "X509v3 Extended Key Usage", "Start date", "Expire date", "CT Precertificate SCTs" lines).
    init(openSSLText fields: [String: String]) {
        let subject = fields["Subject"] ?? ""
        commonNames = subject.components(separatedBy: ", ").compactMap { part in
            part.hasPrefix("CN = ") ? String(part.dropFirst(5)) : part.hasPrefix("CN=") ? String(part.dropFirst(3)) : nil
        }
        if let san = fields["X509v3 Subject Alternative Name"] {
            let entries = san.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            dnsNames = entries.filter { $0.hasPrefix("DNS:") }.map { String($0.dropFirst(4)) }
            ipAddresses = entries.filter { $0.hasPrefix("IP Address:") }.map { String($0.dropFirst(11)) }
        } else {
            dnsNames = nil
            ipAddresses = nil
        }
        let usage = fields["X509v3 Extended Key Usage"]
        hasExtendedKeyUsage = usage != nil
        serverAuth = usage?.contains("TLS Web Server Authentication") ?? false
        notBefore = fields["Start date"].flatMap(CertificateInfoParser.parseOpenSSLDate).map(Self.date)
        notAfter = fields["Expire date"].flatMap(CertificateInfoParser.parseOpenSSLDate).map(Self.date)
        if let scts = fields["CT Precertificate SCTs"] {
            embeddedSCTs = scts.components(separatedBy: "Signed Certificate Timestamp:").count - 1
        } else {
            embeddedSCTs = 0
        }
        source = "openssl-text"
    }

    private static func date(_ timestamp: Timestamp) -> Date {
        Date(timeIntervalSince1970: Double(timestamp.microsecondsSince1970) / 1_000_000)
    }

    /// The number of SCTs in an embedded SCT list extension's value: an OCTET STRING holding the
    /// TLS-encoded `SignedCertificateTimestampList` (a 2-byte length, then SCTs each with a 2-byte
    /// length; RFC 6962 §3.3). nil when the lengths do not add up.
    static func countSCTs(extensionValue: [UInt8]) -> Int? {
        guard let octets = try? ASN1OctetString(derEncoded: extensionValue[...]) else { return nil }
        let list = Array(octets.bytes)
        guard list.count >= 2 else { return nil }
        let total = Int(list[0]) << 8 | Int(list[1])
        guard total == list.count - 2 else { return nil }
        var offset = 2
        var count = 0
        while offset < list.count {
            guard offset + 2 <= list.count else { return nil }
            let length = Int(list[offset]) << 8 | Int(list[offset + 1])
            guard length > 0, offset + 2 + length <= list.count else { return nil }
            offset += 2 + length
            count += 1
        }
        return count
    }
}
