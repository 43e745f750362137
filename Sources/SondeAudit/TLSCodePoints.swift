/// Names of the TLS code points the client simulation reports (IANA's registries): groups,
/// signature schemes, alerts and versions. Suites are named by `CipherSuiteCatalog`.
enum TLSCodePoints {
    static let groups: [UInt16: String] = [
        0x0017: "secp256r1", 0x0018: "secp384r1", 0x0019: "secp521r1", 0x001D: "x25519", 0x001E: "x448",
        0x0100: "ffdhe2048", 0x0101: "ffdhe3072", 0x0102: "ffdhe4096", 0x0103: "ffdhe6144", 0x0104: "ffdhe8192",
        0x11EC: "X25519MLKEM768",
    ]
    static let schemes: [UInt16: String] = [
        0x0201: "rsa_pkcs1_sha1", 0x0203: "ecdsa_sha1", 0x0301: "sha224_rsa", 0x0303: "sha224_ecdsa", 0x0302: "sha224_dsa",
        0x0401: "rsa_pkcs1_sha256", 0x0501: "rsa_pkcs1_sha384", 0x0601: "rsa_pkcs1_sha512",
        0x0402: "sha256_dsa", 0x0502: "sha384_dsa", 0x0602: "sha512_dsa",
        0x0403: "ecdsa_secp256r1_sha256", 0x0503: "ecdsa_secp384r1_sha384", 0x0603: "ecdsa_secp521r1_sha512",
        0x0804: "rsa_pss_rsae_sha256", 0x0805: "rsa_pss_rsae_sha384", 0x0806: "rsa_pss_rsae_sha512",
        0x0807: "ed25519", 0x0808: "ed448", 0x0809: "rsa_pss_pss_sha256", 0x080A: "rsa_pss_pss_sha384", 0x080B: "rsa_pss_pss_sha512",
    ]
    static let alerts: [UInt8: String] = [
        0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 40: "handshake_failure", 42: "bad_certificate",
        47: "illegal_parameter", 50: "decode_error", 51: "decrypt_error", 70: "protocol_version", 71: "insufficient_security",
        80: "internal_error", 86: "inappropriate_fallback", 109: "missing_extension", 110: "unsupported_extension",
        112: "unrecognized_name", 120: "no_application_protocol",
    ]

    static func group(_ code: UInt16) -> String { groups[code] ?? hex(code) }
    static func scheme(_ code: UInt16) -> String { schemes[code] ?? hex(code) }
    static func alert(_ code: UInt8) -> String { alerts[code] ?? "alert \(code)" }
    static func suite(_ code: UInt16) -> String {
        (CipherSuiteCatalog.tls13 + CipherSuiteCatalog.legacy).first { $0.code == code }?.iana ?? hex(code)
    }
    static func version(_ code: UInt16) -> String {
        switch code {
        case 0x0304: return "TLSv1.3"
        case 0x0303: return "TLSv1.2"
        case 0x0302: return "TLSv1.1"
        case 0x0301: return "TLSv1.0"
        case 0x0300: return "SSLv3"
        default: return hex(code)
        }
    }
    /// "0x11ec".
    static func hex(_ code: UInt16) -> String { "0x" + String(code, radix: 16) }
}
