/// A TLS cipher suite `sonde audit` can offer alone: its IANA number and name, OpenSSL's name
/// (what CURLOPT_SSL_CIPHER_LIST / CURLOPT_TLS13_CIPHERS take), the oldest protocol version it
/// works with, and what the audit's rules ask of it.
public struct CipherSuite: Sendable, Hashable {
    /// How the suite agrees on its keys.
    public enum KeyExchange: String, Sendable {
        /// RSA key transport: no forward secrecy.
        case rsa
        /// Finite-field Diffie-Hellman, ephemeral (forward secret).
        case dhe
        /// Elliptic-curve Diffie-Hellman, ephemeral (forward secret).
        case ecdhe
        /// Static (certificate) Diffie-Hellman keys: no forward secrecy.
        case staticDH, staticECDH
        /// No authentication of the server at all (aNULL).
        case anonymous
        /// TLS 1.3: always (EC)DHE, the group is negotiated apart from the suite.
        case tls13
    }

    /// The two-byte IANA code point.
    public var code: UInt16
    public var iana: String
    public var openSSL: String
    public var minimum: TLSProtocolVersion
    public var keyExchange: KeyExchange
    /// OpenSSL's `Enc=` column ("AESGCM(128)", "CHACHA20/POLY1305(256)", "None").
    public var encryption: String
    /// Authenticated encryption (GCM, CCM, ChaCha20-Poly1305).
    public var aead: Bool
    /// Among the suites Apple lists in "Requirements for Connecting Using ATS" (TLS 1.2). TLS 1.3
    /// suites are not in that list (it predates TLS 1.3): see `AuditRules`.
    public var atsListed: Bool

    /// Forward secret: an ephemeral key exchange (and every TLS 1.3 suite).
    public var forwardSecret: Bool { keyExchange == .dhe || keyExchange == .ecdhe || keyExchange == .tls13 }

    /// The code as testssl.sh's JSON ids and sslscan's XML write it, lowercase without leading
    /// zeros after `x` ("xc02f", "x1301", "x2f").
    public var testsslCode: String { "x" + String(code, radix: 16) }
}

/// Every suite the audit tries: the TLS 1.3 suites, then OpenSSL 3's certificate-based TLS 1.0–1.2
/// suites (`openssl ciphers -V -stdname 'ALL:COMPLEMENTOFALL:@SECLEVEL=0'` of OpenSSL 3.0.19,
/// without PSK and SRP, which need credentials a server would have to share first). A suite the
/// running libcurl's OpenSSL lacks is reported untested, not refused.
public enum CipherSuiteCatalog {
    public static let tls13: [CipherSuite] = [
        CipherSuite(code: 0x1301, iana: "TLS_AES_128_GCM_SHA256", openSSL: "TLS_AES_128_GCM_SHA256", minimum: .tls1_3, keyExchange: .tls13, encryption: "AESGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0x1302, iana: "TLS_AES_256_GCM_SHA384", openSSL: "TLS_AES_256_GCM_SHA384", minimum: .tls1_3, keyExchange: .tls13, encryption: "AESGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0x1303, iana: "TLS_CHACHA20_POLY1305_SHA256", openSSL: "TLS_CHACHA20_POLY1305_SHA256", minimum: .tls1_3, keyExchange: .tls13, encryption: "CHACHA20/POLY1305(256)", aead: true, atsListed: false),
        CipherSuite(code: 0x1304, iana: "TLS_AES_128_CCM_SHA256", openSSL: "TLS_AES_128_CCM_SHA256", minimum: .tls1_3, keyExchange: .tls13, encryption: "AESCCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0x1305, iana: "TLS_AES_128_CCM_8_SHA256", openSSL: "TLS_AES_128_CCM_8_SHA256", minimum: .tls1_3, keyExchange: .tls13, encryption: "AESCCM8(128)", aead: true, atsListed: false),
    ]

    /// TLS 1.0–1.2 suites, by IANA code.
    public static let legacy: [CipherSuite] = [
        CipherSuite(code: 0x0001, iana: "TLS_RSA_WITH_NULL_MD5", openSSL: "NULL-MD5", minimum: .tls1_0, keyExchange: .rsa, encryption: "None", aead: false, atsListed: false),
        CipherSuite(code: 0x0002, iana: "TLS_RSA_WITH_NULL_SHA", openSSL: "NULL-SHA", minimum: .tls1_0, keyExchange: .rsa, encryption: "None", aead: false, atsListed: false),
        CipherSuite(code: 0x002F, iana: "TLS_RSA_WITH_AES_128_CBC_SHA", openSSL: "AES128-SHA", minimum: .tls1_0, keyExchange: .rsa, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0032, iana: "TLS_DHE_DSS_WITH_AES_128_CBC_SHA", openSSL: "DHE-DSS-AES128-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0033, iana: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA", openSSL: "DHE-RSA-AES128-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0034, iana: "TLS_DH_anon_WITH_AES_128_CBC_SHA", openSSL: "ADH-AES128-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0035, iana: "TLS_RSA_WITH_AES_256_CBC_SHA", openSSL: "AES256-SHA", minimum: .tls1_0, keyExchange: .rsa, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0038, iana: "TLS_DHE_DSS_WITH_AES_256_CBC_SHA", openSSL: "DHE-DSS-AES256-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0039, iana: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA", openSSL: "DHE-RSA-AES256-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x003A, iana: "TLS_DH_anon_WITH_AES_256_CBC_SHA", openSSL: "ADH-AES256-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x003B, iana: "TLS_RSA_WITH_NULL_SHA256", openSSL: "NULL-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "None", aead: false, atsListed: false),
        CipherSuite(code: 0x003C, iana: "TLS_RSA_WITH_AES_128_CBC_SHA256", openSSL: "AES128-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x003D, iana: "TLS_RSA_WITH_AES_256_CBC_SHA256", openSSL: "AES256-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0040, iana: "TLS_DHE_DSS_WITH_AES_128_CBC_SHA256", openSSL: "DHE-DSS-AES128-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0041, iana: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", openSSL: "CAMELLIA128-SHA", minimum: .tls1_0, keyExchange: .rsa, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0044, iana: "TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA", openSSL: "DHE-DSS-CAMELLIA128-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0045, iana: "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA", openSSL: "DHE-RSA-CAMELLIA128-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0046, iana: "TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA", openSSL: "ADH-CAMELLIA128-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x0067, iana: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", openSSL: "DHE-RSA-AES128-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x006A, iana: "TLS_DHE_DSS_WITH_AES_256_CBC_SHA256", openSSL: "DHE-DSS-AES256-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x006B, iana: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256", openSSL: "DHE-RSA-AES256-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x006C, iana: "TLS_DH_anon_WITH_AES_128_CBC_SHA256", openSSL: "ADH-AES128-SHA256", minimum: .tls1_2, keyExchange: .anonymous, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x006D, iana: "TLS_DH_anon_WITH_AES_256_CBC_SHA256", openSSL: "ADH-AES256-SHA256", minimum: .tls1_2, keyExchange: .anonymous, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0084, iana: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA", openSSL: "CAMELLIA256-SHA", minimum: .tls1_0, keyExchange: .rsa, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0087, iana: "TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA", openSSL: "DHE-DSS-CAMELLIA256-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0088, iana: "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA", openSSL: "DHE-RSA-CAMELLIA256-SHA", minimum: .tls1_0, keyExchange: .dhe, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x0089, iana: "TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA", openSSL: "ADH-CAMELLIA256-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x009C, iana: "TLS_RSA_WITH_AES_128_GCM_SHA256", openSSL: "AES128-GCM-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "AESGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0x009D, iana: "TLS_RSA_WITH_AES_256_GCM_SHA384", openSSL: "AES256-GCM-SHA384", minimum: .tls1_2, keyExchange: .rsa, encryption: "AESGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0x009E, iana: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", openSSL: "DHE-RSA-AES128-GCM-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0x009F, iana: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", openSSL: "DHE-RSA-AES256-GCM-SHA384", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0x00A2, iana: "TLS_DHE_DSS_WITH_AES_128_GCM_SHA256", openSSL: "DHE-DSS-AES128-GCM-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0x00A3, iana: "TLS_DHE_DSS_WITH_AES_256_GCM_SHA384", openSSL: "DHE-DSS-AES256-GCM-SHA384", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0x00A6, iana: "TLS_DH_anon_WITH_AES_128_GCM_SHA256", openSSL: "ADH-AES128-GCM-SHA256", minimum: .tls1_2, keyExchange: .anonymous, encryption: "AESGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0x00A7, iana: "TLS_DH_anon_WITH_AES_256_GCM_SHA384", openSSL: "ADH-AES256-GCM-SHA384", minimum: .tls1_2, keyExchange: .anonymous, encryption: "AESGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0x00BA, iana: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA256", openSSL: "CAMELLIA128-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x00BD, iana: "TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA256", openSSL: "DHE-DSS-CAMELLIA128-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x00BE, iana: "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA256", openSSL: "DHE-RSA-CAMELLIA128-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x00BF, iana: "TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA256", openSSL: "ADH-CAMELLIA128-SHA256", minimum: .tls1_2, keyExchange: .anonymous, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0x00C0, iana: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA256", openSSL: "CAMELLIA256-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x00C3, iana: "TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA256", openSSL: "DHE-DSS-CAMELLIA256-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x00C4, iana: "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA256", openSSL: "DHE-RSA-CAMELLIA256-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0x00C5, iana: "TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA256", openSSL: "ADH-CAMELLIA256-SHA256", minimum: .tls1_2, keyExchange: .anonymous, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0xC006, iana: "TLS_ECDHE_ECDSA_WITH_NULL_SHA", openSSL: "ECDHE-ECDSA-NULL-SHA", minimum: .tls1_0, keyExchange: .ecdhe, encryption: "None", aead: false, atsListed: false),
        CipherSuite(code: 0xC009, iana: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", openSSL: "ECDHE-ECDSA-AES128-SHA", minimum: .tls1_0, keyExchange: .ecdhe, encryption: "AES(128)", aead: false, atsListed: true),
        CipherSuite(code: 0xC00A, iana: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", openSSL: "ECDHE-ECDSA-AES256-SHA", minimum: .tls1_0, keyExchange: .ecdhe, encryption: "AES(256)", aead: false, atsListed: true),
        CipherSuite(code: 0xC010, iana: "TLS_ECDHE_RSA_WITH_NULL_SHA", openSSL: "ECDHE-RSA-NULL-SHA", minimum: .tls1_0, keyExchange: .ecdhe, encryption: "None", aead: false, atsListed: false),
        CipherSuite(code: 0xC013, iana: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", openSSL: "ECDHE-RSA-AES128-SHA", minimum: .tls1_0, keyExchange: .ecdhe, encryption: "AES(128)", aead: false, atsListed: true),
        CipherSuite(code: 0xC014, iana: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", openSSL: "ECDHE-RSA-AES256-SHA", minimum: .tls1_0, keyExchange: .ecdhe, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0xC015, iana: "TLS_ECDH_anon_WITH_NULL_SHA", openSSL: "AECDH-NULL-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "None", aead: false, atsListed: false),
        CipherSuite(code: 0xC018, iana: "TLS_ECDH_anon_WITH_AES_128_CBC_SHA", openSSL: "AECDH-AES128-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "AES(128)", aead: false, atsListed: false),
        CipherSuite(code: 0xC019, iana: "TLS_ECDH_anon_WITH_AES_256_CBC_SHA", openSSL: "AECDH-AES256-SHA", minimum: .tls1_0, keyExchange: .anonymous, encryption: "AES(256)", aead: false, atsListed: false),
        CipherSuite(code: 0xC023, iana: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", openSSL: "ECDHE-ECDSA-AES128-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AES(128)", aead: false, atsListed: true),
        CipherSuite(code: 0xC024, iana: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", openSSL: "ECDHE-ECDSA-AES256-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AES(256)", aead: false, atsListed: true),
        CipherSuite(code: 0xC027, iana: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", openSSL: "ECDHE-RSA-AES128-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AES(128)", aead: false, atsListed: true),
        CipherSuite(code: 0xC028, iana: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", openSSL: "ECDHE-RSA-AES256-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AES(256)", aead: false, atsListed: true),
        CipherSuite(code: 0xC02B, iana: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", openSSL: "ECDHE-ECDSA-AES128-GCM-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESGCM(128)", aead: true, atsListed: true),
        CipherSuite(code: 0xC02C, iana: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", openSSL: "ECDHE-ECDSA-AES256-GCM-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESGCM(256)", aead: true, atsListed: true),
        CipherSuite(code: 0xC02F, iana: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", openSSL: "ECDHE-RSA-AES128-GCM-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESGCM(128)", aead: true, atsListed: true),
        CipherSuite(code: 0xC030, iana: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", openSSL: "ECDHE-RSA-AES256-GCM-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESGCM(256)", aead: true, atsListed: true),
        CipherSuite(code: 0xC050, iana: "TLS_RSA_WITH_ARIA_128_GCM_SHA256", openSSL: "ARIA128-GCM-SHA256", minimum: .tls1_2, keyExchange: .rsa, encryption: "ARIAGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC051, iana: "TLS_RSA_WITH_ARIA_256_GCM_SHA384", openSSL: "ARIA256-GCM-SHA384", minimum: .tls1_2, keyExchange: .rsa, encryption: "ARIAGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC052, iana: "TLS_DHE_RSA_WITH_ARIA_128_GCM_SHA256", openSSL: "DHE-RSA-ARIA128-GCM-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "ARIAGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC053, iana: "TLS_DHE_RSA_WITH_ARIA_256_GCM_SHA384", openSSL: "DHE-RSA-ARIA256-GCM-SHA384", minimum: .tls1_2, keyExchange: .dhe, encryption: "ARIAGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC056, iana: "TLS_DHE_DSS_WITH_ARIA_128_GCM_SHA256", openSSL: "DHE-DSS-ARIA128-GCM-SHA256", minimum: .tls1_2, keyExchange: .dhe, encryption: "ARIAGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC057, iana: "TLS_DHE_DSS_WITH_ARIA_256_GCM_SHA384", openSSL: "DHE-DSS-ARIA256-GCM-SHA384", minimum: .tls1_2, keyExchange: .dhe, encryption: "ARIAGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC05C, iana: "TLS_ECDHE_ECDSA_WITH_ARIA_128_GCM_SHA256", openSSL: "ECDHE-ECDSA-ARIA128-GCM-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "ARIAGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC05D, iana: "TLS_ECDHE_ECDSA_WITH_ARIA_256_GCM_SHA384", openSSL: "ECDHE-ECDSA-ARIA256-GCM-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "ARIAGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC060, iana: "TLS_ECDHE_RSA_WITH_ARIA_128_GCM_SHA256", openSSL: "ECDHE-ARIA128-GCM-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "ARIAGCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC061, iana: "TLS_ECDHE_RSA_WITH_ARIA_256_GCM_SHA384", openSSL: "ECDHE-ARIA256-GCM-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "ARIAGCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC072, iana: "TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256", openSSL: "ECDHE-ECDSA-CAMELLIA128-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0xC073, iana: "TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384", openSSL: "ECDHE-ECDSA-CAMELLIA256-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0xC076, iana: "TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256", openSSL: "ECDHE-RSA-CAMELLIA128-SHA256", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "Camellia(128)", aead: false, atsListed: false),
        CipherSuite(code: 0xC077, iana: "TLS_ECDHE_RSA_WITH_CAMELLIA_256_CBC_SHA384", openSSL: "ECDHE-RSA-CAMELLIA256-SHA384", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "Camellia(256)", aead: false, atsListed: false),
        CipherSuite(code: 0xC09C, iana: "TLS_RSA_WITH_AES_128_CCM", openSSL: "AES128-CCM", minimum: .tls1_2, keyExchange: .rsa, encryption: "AESCCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC09D, iana: "TLS_RSA_WITH_AES_256_CCM", openSSL: "AES256-CCM", minimum: .tls1_2, keyExchange: .rsa, encryption: "AESCCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC09E, iana: "TLS_DHE_RSA_WITH_AES_128_CCM", openSSL: "DHE-RSA-AES128-CCM", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESCCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC09F, iana: "TLS_DHE_RSA_WITH_AES_256_CCM", openSSL: "DHE-RSA-AES256-CCM", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESCCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0A0, iana: "TLS_RSA_WITH_AES_128_CCM_8", openSSL: "AES128-CCM8", minimum: .tls1_2, keyExchange: .rsa, encryption: "AESCCM8(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0A1, iana: "TLS_RSA_WITH_AES_256_CCM_8", openSSL: "AES256-CCM8", minimum: .tls1_2, keyExchange: .rsa, encryption: "AESCCM8(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0A2, iana: "TLS_DHE_RSA_WITH_AES_128_CCM_8", openSSL: "DHE-RSA-AES128-CCM8", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESCCM8(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0A3, iana: "TLS_DHE_RSA_WITH_AES_256_CCM_8", openSSL: "DHE-RSA-AES256-CCM8", minimum: .tls1_2, keyExchange: .dhe, encryption: "AESCCM8(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0AC, iana: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM", openSSL: "ECDHE-ECDSA-AES128-CCM", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESCCM(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0AD, iana: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM", openSSL: "ECDHE-ECDSA-AES256-CCM", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESCCM(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0AE, iana: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", openSSL: "ECDHE-ECDSA-AES128-CCM8", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESCCM8(128)", aead: true, atsListed: false),
        CipherSuite(code: 0xC0AF, iana: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8", openSSL: "ECDHE-ECDSA-AES256-CCM8", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "AESCCM8(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xCCA8, iana: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", openSSL: "ECDHE-RSA-CHACHA20-POLY1305", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "CHACHA20/POLY1305(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xCCA9, iana: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", openSSL: "ECDHE-ECDSA-CHACHA20-POLY1305", minimum: .tls1_2, keyExchange: .ecdhe, encryption: "CHACHA20/POLY1305(256)", aead: true, atsListed: false),
        CipherSuite(code: 0xCCAA, iana: "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", openSSL: "DHE-RSA-CHACHA20-POLY1305", minimum: .tls1_2, keyExchange: .dhe, encryption: "CHACHA20/POLY1305(256)", aead: true, atsListed: false),
    ]

    /// The suites to try at `version`: TLS 1.3's own, or the legacy suites that work at it.
    public static func suites(for version: TLSProtocolVersion) -> [CipherSuite] {
        version == .tls1_3 ? tls13 : legacy.filter { $0.minimum <= version }
    }

    /// The suite with this OpenSSL or IANA name, nil when it is not in the catalog.
    public static func named(_ name: String) -> CipherSuite? {
        byName[name]
    }

    private static let byName: [String: CipherSuite] = {
        var names: [String: CipherSuite] = [:]
        for suite in tls13 + legacy {
            names[suite.openSSL] = suite
            names[suite.iana] = suite
        }
        return names
    }()
}
