import Foundation
import SondeCore
import SondeHTTP
import SwiftASN1
import X509

/// One certificate as a server sent it, with what the audit's rules judge in every certificate of
/// the chain (not only the leaf): its public key, the algorithm it is signed with and the raw
/// subject and issuer names that link it to the others.
///
/// Read from the DER (CURLINFO_CERTINFO's "Cert:" PEM) with SwiftASN1 alone, walking
/// `Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }` (RFC 5280 §4.1):
/// swift-certificates refuses a whole certificate whose key it cannot use (an RSA key under 2048
/// bits, a curve it lacks), and those are the certificates the rules must see. Nothing here traps
/// on the server's bytes: what does not parse is nil.
struct ServedCertificate: Sendable, Equatable {
    /// The certificate's public key, as far as the rules need it.
    enum Key: Sendable, Equatable {
        case rsa(bits: Int)
        /// An elliptic curve key on a named curve ("P-256"), `bits` the curve's size.
        case ec(curve: String, bits: Int)
        case ed25519, ed448
        case dsa(bits: Int)
        /// Any other algorithm, by its OID.
        case other(oid: String)

        /// "RSA 2048", "EC P-256 (256 bits)", "Ed25519".
        var description: String {
            switch self {
            case .rsa(let bits): return "RSA \(bits) bits"
            case .ec(let curve, let bits): return "EC \(curve) (\(bits) bits)"
            case .ed25519: return "Ed25519"
            case .ed448: return "Ed448"
            case .dsa(let bits): return "DSA \(bits) bits"
            case .other(let oid): return "key algorithm \(oid)"
            }
        }
    }

    /// The signature algorithm the issuer signed this certificate with.
    struct Signature: Sendable, Equatable {
        /// "sha256WithRSAEncryption", "ecdsa-with-SHA384", "ED25519", or the OID when unknown.
        var name: String
        /// The digest: "MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512"; nil for an
        /// algorithm without a separate digest (Ed25519, Ed448) or an unknown one.
        var digest: String?
    }

    /// The position in the order served, from 0 (the leaf, by TLS's rule).
    var index: Int
    /// OpenSSL's one-line subject as libcurl wrote it ("CN = localhost"); may be empty.
    var subject: String
    var issuer: String
    /// The subject's and issuer's DER (a `Name`): equal bytes link a certificate to its issuer.
    var subjectDER: [UInt8]?
    var issuerDER: [UInt8]?
    var key: Key?
    var signature: Signature?
    /// The subjectAltName's DNS names and IP addresses (for naming a certificate whose subject is empty).
    var alternativeNames: [String]
    var notBefore: Timestamp?
    var notAfter: Timestamp?
    /// The DER's SHA-256, when the PEM decoded.
    var fingerprintSHA256: String?

    /// Self-issued: subject and issuer are the same name (a root, or a self-signed leaf).
    var selfIssued: Bool { subjectDER != nil && subjectDER == issuerDER }

    /// How the evidence names it: the subject, or for an empty subject its SAN or fingerprint.
    var name: String {
        if !subject.trimmingCharacters(in: .whitespaces).isEmpty { return subject }
        if !alternativeNames.isEmpty { return "empty subject, SAN " + alternativeNames.prefix(3).joined(separator: ", ") }
        return "empty subject" + (fingerprintSHA256.map { ", SHA-256 \($0.prefix(16))…" } ?? "")
    }

    /// "#2 CN = intermediate".
    var label: String { "#\(index + 1) \(name)" }

    /// One certificate's CURLINFO_CERTINFO lines, at `index` in the order served.
    init(certinfo lines: [String], index: Int) {
        let fields = CertificateInfoParser.fields(lines)
        self.index = index
        subject = fields["Subject"] ?? ""
        issuer = fields["Issuer"] ?? ""
        notBefore = fields["Start date"].flatMap(CertificateInfoParser.parseOpenSSLDate)
        notAfter = fields["Expire date"].flatMap(CertificateInfoParser.parseOpenSSLDate)
        alternativeNames = []
        guard let pem = fields["Cert"], let document = try? PEMDocument(pemString: pem), document.discriminator == "CERTIFICATE" else { return }
        let facts = CertificateInfoParser.parse([lines]).first
        fingerprintSHA256 = facts?.fingerprintSHA256
        alternativeNames = (facts?.dnsNames ?? []) + (facts?.ipAddresses ?? [])
        if let parsed = try? Self.parse(der: document.derBytes) {
            subjectDER = parsed.subject
            issuerDER = parsed.issuer
            key = parsed.key
            signature = parsed.signature
        }
    }

    /// For tests: a certificate from its parts.
    init(index: Int, subject: String, issuer: String, subjectDER: [UInt8]?, issuerDER: [UInt8]?, key: Key?, signature: Signature?,
         notBefore: Timestamp? = nil, notAfter: Timestamp? = nil) {
        self.index = index
        self.subject = subject
        self.issuer = issuer
        self.subjectDER = subjectDER
        self.issuerDER = issuerDER
        self.key = key
        self.signature = signature
        self.alternativeNames = []
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    struct Parsed: Equatable {
        var subject: [UInt8]
        var issuer: [UInt8]
        var key: Key
        var signature: Signature
    }

    /// The names, key and signature algorithm of a certificate's DER.
    static func parse(der: [UInt8]) throws -> Parsed {
        let root = try DER.parse(der)
        let certificate = try children(root)
        guard certificate.count >= 3 else { throw ASN1Error.invalidASN1Object(reason: "a certificate has three parts") }
        var tbs = try children(certificate[0])
        // tbsCertificate: [0] version (optional), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, …
        if let first = tbs.first, first.identifier.tagClass == .contextSpecific, first.identifier.tagNumber == 0 { tbs.removeFirst() }
        guard tbs.count >= 6 else { throw ASN1Error.invalidASN1Object(reason: "tbsCertificate too short") }
        let issuer = Array(tbs[2].encodedBytes)
        let subject = Array(tbs[4].encodedBytes)
        let spki = try children(tbs[5])
        guard spki.count == 2 else { throw ASN1Error.invalidASN1Object(reason: "subjectPublicKeyInfo has two parts") }
        let algorithm = try children(spki[0])
        guard let oidNode = algorithm.first else { throw ASN1Error.invalidASN1Object(reason: "no key algorithm") }
        let keyOID = try ASN1ObjectIdentifier(derEncoded: oidNode)
        let keyBits = try ASN1BitString(derEncoded: spki[1])
        let key = try Self.key(oid: keyOID, parameters: algorithm.dropFirst().first, bits: Array(keyBits.bytes))
        return Parsed(subject: subject, issuer: issuer, key: key, signature: try Self.signature(certificate[1]))
    }

    private static func children(_ node: ASN1Node) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw ASN1Error.unexpectedFieldType(node.identifier) }
        return Array(nodes)
    }

    // MARK: Keys

    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let rsaPSS: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 10]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let ed25519: ASN1ObjectIdentifier = [1, 3, 101, 112]
    static let ed448: ASN1ObjectIdentifier = [1, 3, 101, 113]
    static let dsa: ASN1ObjectIdentifier = [1, 2, 840, 10040, 4, 1]

    /// Named curves by OID: their common name and size in bits.
    static let curves: [ASN1ObjectIdentifier: (name: String, bits: Int)] = [
        [1, 2, 840, 10045, 3, 1, 1]: ("P-192", 192), [1, 3, 132, 0, 33]: ("P-224", 224), [1, 2, 840, 10045, 3, 1, 7]: ("P-256", 256),
        [1, 3, 132, 0, 34]: ("P-384", 384), [1, 3, 132, 0, 35]: ("P-521", 521), [1, 3, 132, 0, 10]: ("secp256k1", 256),
        [1, 3, 36, 3, 3, 2, 8, 1, 1, 7]: ("brainpoolP256r1", 256), [1, 3, 36, 3, 3, 2, 8, 1, 1, 11]: ("brainpoolP384r1", 384),
        [1, 3, 36, 3, 3, 2, 8, 1, 1, 13]: ("brainpoolP512r1", 512),
    ]

    private static func key(oid: ASN1ObjectIdentifier, parameters: ASN1Node?, bits: [UInt8]) throws -> Key {
        switch oid {
        case rsaEncryption, rsaPSS:
            // RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } (RFC 8017 A.1.1)
            let fields = try children(try DER.parse(bits))
            guard let modulus = fields.first, case .primitive(let bytes) = modulus.content else {
                throw ASN1Error.invalidASN1Object(reason: "no RSA modulus")
            }
            return .rsa(bits: significantBits(bytes))
        case ecPublicKey:
            if let parameters, let curve = try? ASN1ObjectIdentifier(derEncoded: parameters) {
                if let known = curves[curve] { return .ec(curve: known.name, bits: known.bits) }
                return .ec(curve: curve.description, bits: pointBits(bits))
            }
            return .ec(curve: "explicit parameters", bits: pointBits(bits))
        case ed25519: return .ed25519
        case ed448: return .ed448
        case dsa:
            // Dss-Parms ::= SEQUENCE { p INTEGER, q INTEGER, g INTEGER } (RFC 3279 §2.3.2): p's size.
            if let parameters, let fields = try? children(parameters), let p = fields.first, case .primitive(let bytes) = p.content {
                return .dsa(bits: significantBits(bytes))
            }
            return .dsa(bits: 0)
        default:
            return .other(oid: oid.description)
        }
    }

    /// The size of an unsigned big-endian integer in bits (leading zero bytes and bits not counted).
    static func significantBits(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.endIndex - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    /// An uncompressed point's (0x04 ‖ X ‖ Y) coordinate size in bits; a compressed one's (0x02/0x03 ‖ X).
    private static func pointBits(_ point: [UInt8]) -> Int {
        guard let form = point.first else { return 0 }
        return form == 4 ? (point.count - 1) / 2 * 8 : (point.count - 1) * 8
    }

    // MARK: Signatures

    /// Signature algorithms by OID: OpenSSL's name and the digest.
    static let signatures: [ASN1ObjectIdentifier: Signature] = [
        [1, 2, 840, 113549, 1, 1, 2]: Signature(name: "md2WithRSAEncryption", digest: "MD2"),
        [1, 2, 840, 113549, 1, 1, 4]: Signature(name: "md5WithRSAEncryption", digest: "MD5"),
        [1, 2, 840, 113549, 1, 1, 5]: Signature(name: "sha1WithRSAEncryption", digest: "SHA1"),
        [1, 3, 14, 3, 2, 29]: Signature(name: "sha1WithRSA", digest: "SHA1"),
        [1, 2, 840, 113549, 1, 1, 14]: Signature(name: "sha224WithRSAEncryption", digest: "SHA224"),
        [1, 2, 840, 113549, 1, 1, 11]: Signature(name: "sha256WithRSAEncryption", digest: "SHA256"),
        [1, 2, 840, 113549, 1, 1, 12]: Signature(name: "sha384WithRSAEncryption", digest: "SHA384"),
        [1, 2, 840, 113549, 1, 1, 13]: Signature(name: "sha512WithRSAEncryption", digest: "SHA512"),
        [1, 2, 840, 10045, 4, 1]: Signature(name: "ecdsa-with-SHA1", digest: "SHA1"),
        [1, 2, 840, 10045, 4, 3, 1]: Signature(name: "ecdsa-with-SHA224", digest: "SHA224"),
        [1, 2, 840, 10045, 4, 3, 2]: Signature(name: "ecdsa-with-SHA256", digest: "SHA256"),
        [1, 2, 840, 10045, 4, 3, 3]: Signature(name: "ecdsa-with-SHA384", digest: "SHA384"),
        [1, 2, 840, 10045, 4, 3, 4]: Signature(name: "ecdsa-with-SHA512", digest: "SHA512"),
        [1, 2, 840, 10040, 4, 3]: Signature(name: "dsa-with-SHA1", digest: "SHA1"),
        [2, 16, 840, 1, 101, 3, 4, 3, 2]: Signature(name: "dsa-with-SHA256", digest: "SHA256"),
        [1, 3, 101, 112]: Signature(name: "ED25519", digest: nil),
        [1, 3, 101, 113]: Signature(name: "ED448", digest: nil),
    ]

    /// Digests by OID (RSASSA-PSS names its hash in its parameters).
    static let digests: [ASN1ObjectIdentifier: String] = [
        [1, 3, 14, 3, 2, 26]: "SHA1", [2, 16, 840, 1, 101, 3, 4, 2, 4]: "SHA224", [2, 16, 840, 1, 101, 3, 4, 2, 1]: "SHA256",
        [2, 16, 840, 1, 101, 3, 4, 2, 2]: "SHA384", [2, 16, 840, 1, 101, 3, 4, 2, 3]: "SHA512",
    ]

    /// The digest RSASSA-PSS parameters name ([0] hashAlgorithm): SHA1 when they name none (the
    /// default), nil when it is unknown or does not parse.
    private static func pssDigest(_ parameters: ASN1Node?) -> String? {
        guard let parameters, let items = try? children(parameters) else { return "SHA1" }
        guard let tagged = items.first(where: { $0.identifier.tagClass == .contextSpecific && $0.identifier.tagNumber == 0 }) else { return "SHA1" }
        guard let algorithm = (try? children(tagged))?.first, let oidNode = (try? children(algorithm))?.first,
              let oid = try? ASN1ObjectIdentifier(derEncoded: oidNode) else { return nil }
        return digests[oid]
    }

    private static func signature(_ algorithmIdentifier: ASN1Node) throws -> Signature {
        let fields = try children(algorithmIdentifier)
        guard let oidNode = fields.first else { throw ASN1Error.invalidASN1Object(reason: "no signature algorithm") }
        let oid = try ASN1ObjectIdentifier(derEncoded: oidNode)
        if let known = signatures[oid] { return known }
        if oid == rsaPSS {
            // RSASSA-PSS-params ::= SEQUENCE { hashAlgorithm [0] HashAlgorithm DEFAULT sha1, … } (RFC 8017 A.2.3)
            return Signature(name: "rsassaPss", digest: pssDigest(fields.dropFirst().first))
        }
        return Signature(name: oid.description, digest: nil)
    }
}
