import Crypto
import Foundation
import SwiftASN1
import X509

/// The target's TLS material, generated at start: a private CA and leaf certificates it signs.
///
/// - `leaf`: valid now for `localhost`, `127.0.0.1` and `::1`;
/// - `expiredLeaf`: the same names, but expired a day ago (for the expired-certificate check);
/// - `wrongHostLeaf`: valid now, but only for `wrong.host.invalid` (for the hostname check).
/// The CA's PEM is written to a file so probes can trust it with `--cacert`.
public struct TargetCertificates: Sendable {
    public struct Identity: Sendable {
        public let certificatePEM: String
        public let privateKeyPEM: String
    }

    public let caPEM: String
    public let leaf: Identity
    public let expiredLeaf: Identity
    public let wrongHostLeaf: Identity

    public static func generate(now: Date = Date()) throws -> TargetCertificates {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            OrganizationName("sonde")
            CommonName("sonde target CA")
        }
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))

        func issue(names: [String], addresses: [[UInt8]], notBefore: Date, notAfter: Date) throws -> Identity {
            let key = P256.Signing.PrivateKey()
            let subject = try DistinguishedName {
                OrganizationName("sonde")
                CommonName(names.first ?? "sonde target")
            }
            var alternativeNames = names.map { GeneralName.dnsName($0) }
            alternativeNames += addresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: caName, subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(alternativeNames)
                },
                issuerPrivateKey: .init(caKey))
            return Identity(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
        }
        let loopback: [[UInt8]] = [[127, 0, 0, 1], Array(repeating: 0, count: 15) + [1]]
        return TargetCertificates(
            caPEM: try ca.serializeAsPEM().pemString,
            leaf: try issue(names: ["localhost"], addresses: loopback,
                            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(7 * 86400)),
            expiredLeaf: try issue(names: ["localhost"], addresses: loopback,
                                   notBefore: now.addingTimeInterval(-10 * 86400), notAfter: now.addingTimeInterval(-86400)),
            wrongHostLeaf: try issue(names: ["wrong.host.invalid"], addresses: [],
                                     notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(7 * 86400)))
    }
}
