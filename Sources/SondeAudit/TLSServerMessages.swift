/// The server's handshake messages the client simulation reads (RFC 8446 §4, RFC 5246 §7.4),
/// each parsed from its body (after the 4-byte handshake header). Pure; malformed bytes throw.
enum TLSServerMessages {
    /// SHA-256 of "HelloRetryRequest": a ServerHello with this random is an HRR (RFC 8446 §4.1.3).
    static let helloRetryRandom: [UInt8] = [0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
                                            0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C]

    struct ServerHello: Equatable {
        /// The version chosen: supported_versions' when present, else legacy_version.
        var version: UInt16
        var suite: UInt16
        var helloRetry: Bool
        /// key_share: the server's group (in an HRR, the group asked for).
        var group: UInt16?
        /// The server's public share (empty in an HRR).
        var share: [UInt8] = []
        /// An HRR's cookie extension data, echoed in the second ClientHello.
        var cookie: [UInt8]?
    }

    static func serverHello(_ body: [UInt8]) throws(TLSParseError) -> ServerHello {
        var reader = TLSByteReader(body)
        let legacy = try reader.u16()
        let random = try reader.take(32)
        _ = try reader.vector8()
        let suite = try reader.u16()
        _ = try reader.u8()
        var hello = ServerHello(version: legacy, suite: suite, helloRetry: random == helloRetryRandom)
        guard !reader.atEnd else { return hello }
        var extensions = TLSByteReader(try reader.vector16())
        while !extensions.atEnd {
            let type = try extensions.u16()
            var data = TLSByteReader(try extensions.vector16())
            switch type {
            case 0x002B: hello.version = try data.u16()
            case 0x0033:
                hello.group = try data.u16()
                if !hello.helloRetry { hello.share = try data.vector16() }
            case 0x002C: hello.cookie = data.bytes
            default: break
            }
        }
        return hello
    }

    /// The leaf's DER from a Certificate message (TLS 1.3 has a context and per-entry extensions).
    static func leaf(_ body: [UInt8], tls13: Bool) throws(TLSParseError) -> [UInt8]? {
        var reader = TLSByteReader(body)
        if tls13 { _ = try reader.vector8() }
        var list = TLSByteReader(try reader.vector24())
        guard !list.atEnd else { return nil }
        return try list.vector24()
    }

    /// A TLS 1.2 ServerKeyExchange of an ECDHE or DHE suite: the group ("x25519", "DH 2048") and
    /// the signature scheme.
    static func serverKeyExchange(_ body: [UInt8], ecdhe: Bool) throws(TLSParseError) -> (group: String, scheme: UInt16) {
        var reader = TLSByteReader(body)
        let group: String
        if ecdhe {
            guard try reader.u8() == 3 else { throw TLSParseError(reason: "ServerKeyExchange without a named curve") }
            group = TLSCodePoints.group(try reader.u16())
            _ = try reader.vector8()
        } else {
            let prime = try reader.vector16()
            group = "DH \(ServedCertificate.significantBits(prime[...]))"
            _ = try reader.vector16()
            _ = try reader.vector16()
        }
        return (group, try reader.u16())
    }

    /// The scheme of a CertificateVerify.
    static func certificateVerifyScheme(_ body: [UInt8]) throws(TLSParseError) -> UInt16 {
        var reader = TLSByteReader(body)
        return try reader.u16()
    }
}
