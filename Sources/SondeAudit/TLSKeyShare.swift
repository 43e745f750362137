import Crypto

/// One ephemeral key share sonde puts in a simulated ClientHello (swift-crypto), so that it can
/// compute the TLS 1.3 shared secret and read the server's encrypted first flight. Groups without
/// a key here (FFDHE, x448) cannot be shared: `init` gives nil.
enum TLSKeyShare {
    case x25519(Curve25519.KeyAgreement.PrivateKey)
    case p256(P256.KeyAgreement.PrivateKey)
    case p384(P384.KeyAgreement.PrivateKey)
    case p521(P521.KeyAgreement.PrivateKey)

    /// A fresh key for `group`, nil for a group sonde has no key for.
    init?(group: UInt16) {
        switch group {
        case 0x001D: self = .x25519(Curve25519.KeyAgreement.PrivateKey())
        case 0x0017: self = .p256(P256.KeyAgreement.PrivateKey())
        case 0x0018: self = .p384(P384.KeyAgreement.PrivateKey())
        case 0x0019: self = .p521(P521.KeyAgreement.PrivateKey())
        default: return nil
        }
    }

    /// The public share as the key_share extension carries it (RFC 8446 §4.2.8.2: X25519's 32
    /// bytes, an uncompressed X9.62 point for the NIST curves).
    var publicBytes: [UInt8] {
        switch self {
        case .x25519(let key): return Array(key.publicKey.rawRepresentation)
        case .p256(let key): return Array(key.publicKey.x963Representation)
        case .p384(let key): return Array(key.publicKey.x963Representation)
        case .p521(let key): return Array(key.publicKey.x963Representation)
        }
    }

    /// The (EC)DHE shared secret with the server's share; throws on a share that is no valid point.
    func sharedSecret(with peer: [UInt8]) throws -> [UInt8] {
        let secret: SharedSecret
        switch self {
        case .x25519(let key): secret = try key.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: peer))
        case .p256(let key): secret = try key.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
        case .p384(let key): secret = try key.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
        case .p521(let key): secret = try key.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
        }
        return secret.withUnsafeBytes { Array($0) }
    }
}
