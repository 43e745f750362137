import Foundation
import SondeCore
import X509

extension CertificateDERFacts {
    /// A peer certificate from its DER alone (a TLS library that is not libcurl handed it over:
    /// the tcp prober's NIOSSL): fingerprint, Go's subject and issuer, SAN names and validity.
    /// The OpenSSL one-line `subject`/`issuer` are Go's form too (there is no OpenSSL text here).
    /// A DER that does not parse gives the fingerprint alone.
    public static func peerCertificate(der: [UInt8]) -> PeerCertificate {
        let facts = CertificateDERFacts(der: der)
        let parsed = try? Certificate(derEncoded: der)
        func timestamp(_ date: Date?) -> Timestamp? {
            guard let seconds = date?.timeIntervalSince1970, seconds.isFinite, abs(seconds) < 1e12 else { return nil }
            return Timestamp(microsecondsSince1970: Int64(seconds * 1e6))
        }
        return PeerCertificate(subject: facts.subjectDN ?? "", issuer: facts.issuerDN ?? "", notBefore: timestamp(parsed?.notValidBefore),
                               notAfter: timestamp(parsed?.notValidAfter), fingerprintSHA256: facts.fingerprintSHA256,
                               dnsNames: facts.dnsNames, ipAddresses: facts.ipAddresses, subjectDN: facts.subjectDN, issuerDN: facts.issuerDN)
    }
}
