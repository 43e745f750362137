import Crypto

/// Opens the server's encrypted TLS 1.3 handshake records (RFC 8446 §7.1 key schedule, §5.2
/// record protection) from the (EC)DHE shared secret and the ClientHello…ServerHello transcript,
/// so that the simulation reads Certificate and CertificateVerify. Suites: AES-128/256-GCM and
/// ChaCha20-Poly1305 (the CCM ones give nil). Not thread-safe (it counts records); one per handshake.
struct TLS13FlightDecryptor {
    private let suite: UInt16
    private let key: SymmetricKey
    private let iv: [UInt8]
    private var sequence: UInt64 = 0

    /// nil for a suite it cannot open.
    init?(suite: UInt16, sharedSecret: [UInt8], transcript: [UInt8]) {
        guard [0x1301, 0x1302, 0x1303].contains(suite) else { return nil }
        self.suite = suite
        let secret = Self.serverHandshakeSecret(suite: suite, sharedSecret: sharedSecret, transcriptHash: Self.hash(suite: suite, transcript))
        let traffic = Self.trafficKey(suite: suite, secret: secret)
        key = SymmetricKey(data: traffic.key)
        iv = traffic.iv
    }

    /// The record key and IV of a traffic secret (RFC 8446 §7.3).
    static func trafficKey(suite: UInt16, secret: [UInt8]) -> (key: [UInt8], iv: [UInt8]) {
        (expandLabel(suite: suite, secret: secret, label: "key", context: [], length: suite == 0x1301 ? 16 : 32),
         expandLabel(suite: suite, secret: secret, label: "iv", context: [], length: 12))
    }

    /// The hash of `bytes` with the suite's hash (SHA-384 for TLS_AES_256_GCM_SHA384, else SHA-256).
    static func hash(suite: UInt16, _ bytes: [UInt8]) -> [UInt8] {
        suite == 0x1302 ? Array(SHA384.hash(data: bytes)) : Array(SHA256.hash(data: bytes))
    }

    /// server_handshake_traffic_secret, from the hash of ClientHello…ServerHello.
    static func serverHandshakeSecret(suite: UInt16, sharedSecret: [UInt8], transcriptHash: [UInt8]) -> [UInt8] {
        let length = suite == 0x1302 ? 48 : 32
        let zeros = [UInt8](repeating: 0, count: length)
        let early = hmac(suite: suite, key: zeros, data: zeros)
        let derived = expandLabel(suite: suite, secret: early, label: "derived", context: hash(suite: suite, []), length: length)
        let handshake = hmac(suite: suite, key: derived, data: sharedSecret)
        return expandLabel(suite: suite, secret: handshake, label: "s hs traffic", context: transcriptHash, length: length)
    }

    /// HKDF-Expand-Label (RFC 8446 §7.1), HKDF-Expand written out over HMAC.
    static func expandLabel(suite: UInt16, secret: [UInt8], label: String, context: [UInt8], length: Int) -> [UInt8] {
        let fullLabel = Array("tls13 \(label)".utf8)
        let info = ClientHelloEncoder.u16(UInt16(length)) + [UInt8(fullLabel.count)] + fullLabel + [UInt8(context.count)] + context
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = hmac(suite: suite, key: secret, data: block + info + [counter])
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }

    static func hmac(suite: UInt16, key: [UInt8], data: [UInt8]) -> [UInt8] {
        let symmetric = SymmetricKey(data: key)
        return suite == 0x1302 ? Array(HMAC<SHA384>.authenticationCode(for: data, using: symmetric))
            : Array(HMAC<SHA256>.authenticationCode(for: data, using: symmetric))
    }

    /// The inner plaintext of one application_data record (`header` its 5 bytes, the AAD): the
    /// content type and the content, padding removed; throws when the record does not open.
    mutating func open(header: [UInt8], fragment: [UInt8]) throws -> (type: UInt8, content: [UInt8]) {
        guard fragment.count >= 17 else { throw TLSParseError(reason: "an encrypted record shorter than its tag") }
        var nonce = iv
        for index in 0..<8 { nonce[4 + index] ^= UInt8((sequence >> (8 * (7 - UInt64(index)))) & 0xFF) }
        sequence += 1
        let ciphertext = fragment.prefix(fragment.count - 16), tag = fragment.suffix(16)
        let plain: [UInt8]
        if suite == 0x1303 {
            let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            plain = Array(try ChaChaPoly.open(box, using: key, authenticating: header))
        } else {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            plain = Array(try AES.GCM.open(box, using: key, authenticating: header))
        }
        guard let last = plain.lastIndex(where: { $0 != 0 }) else { throw TLSParseError(reason: "an encrypted record with no content type") }
        return (plain[last], Array(plain[..<last]))
    }
}
