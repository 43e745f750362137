/// What one client accepts in the keys and signatures of a server's certificates: the key types
/// and their least sizes, and the signature digests. Applied to every certificate of the chain,
/// the leaf and the CAs that issued it ("TLS server certificates and issuing CAs", Apple's rule).
/// A self-issued root's own signature is not judged (no client checks the signature of a trust
/// anchor: OpenSSL's chain check leaves it out too).
///
/// Pure values: `ats` is URLSession's under App Transport Security. A client profile (another
/// platform's rules) is another value of this type.
struct CertificatePolicy: Sendable {
    /// Who applies it ("URLSession under App Transport Security").
    var client: String
    /// The least RSA modulus (bits); nil: RSA keys refused.
    var minimumRSABits: Int?
    /// The least elliptic-curve size (bits); nil: EC keys refused.
    var minimumECBits: Int?
    /// Edwards-curve keys (Ed25519, Ed448) accepted.
    var acceptsEdDSA: Bool
    /// Signature digests accepted ("SHA256"); an algorithm without a separate digest (EdDSA) is
    /// accepted only with `acceptsEdDSA`.
    var digests: Set<String>
    /// Where the rule is published.
    var source: String

    /// ATS: "at least a 2048-bit or greater RSA key or a 256-bit or greater ECC key", signed with
    /// "SHA-2 with a digest length of at least 256 (that is, SHA-256 or greater)"; RSA and ECC
    /// are the only key types it lists.
    static let ats = CertificatePolicy(client: "URLSession under App Transport Security", minimumRSABits: 2048, minimumECBits: 256,
                                       acceptsEdDSA: false, digests: ["SHA256", "SHA384", "SHA512"], source: AuditRuleSources.ats)

    /// Why `key` is refused, nil when it is accepted.
    func refusal(of key: ServedCertificate.Key) -> String? {
        switch key {
        case .rsa(let bits):
            guard let minimum = minimumRSABits else { return "RSA keys are not accepted" }
            return bits < minimum ? "RSA \(bits) bits is under \(minimum)" : nil
        case .ec(let curve, let bits):
            guard let minimum = minimumECBits else { return "EC keys are not accepted" }
            return bits < minimum ? "EC \(curve) (\(bits) bits) is under \(minimum) bits" : nil
        case .ed25519, .ed448:
            return acceptsEdDSA ? nil : "\(key.description) is neither an RSA nor an ECC key, the only types ATS lists"
        case .dsa, .other:
            return "\(key.description) is neither an RSA nor an ECC key, the only types ATS lists"
        }
    }

    /// Why `signature` is refused, nil when it is accepted.
    func refusal(of signature: ServedCertificate.Signature) -> String? {
        if let digest = signature.digest {
            return digests.contains(digest) ? nil : "\(signature.name): \(digest) is not SHA-256 or better"
        }
        if acceptsEdDSA && ["ED25519", "ED448"].contains(signature.name) { return nil }
        return "\(signature.name) is not a SHA-2 signature (SHA-256 or better)"
    }
}
