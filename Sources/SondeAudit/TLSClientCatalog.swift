/// sonde's own table of client offers (`TLSClientProfile`), written from public primary sources
/// (cited per profile in `sources`, and in docs/audit.md). No bytes of another tool's table are
/// copied; testssl.sh's client-simulation table is only the tests' oracle.
///
/// Conventions: iOS profiles are URLSession under App Transport Security (Apple's ATS suite group:
/// the TLS 1.3 suites and the forward-secret ECDHE ones, TLS 1.2 at least); Android profiles are
/// OkHttp's MODERN_TLS connection spec on that release's platform socket (OkHttp keeps the
/// socket's order and drops the suites its spec does not list), BoringSSL's groups and signature
/// schemes (Conscrypt sets none of its own).
public enum TLSClientCatalog {
    // MARK: IANA code points used below

    static let tls13Suites: [UInt16] = [0x1301, 0x1302, 0x1303]
    /// Apple's `CiphersuitesPFS` up to Security-60157 (iOS 12–15.3): ECDHE with AES-GCM, ChaCha20
    /// and AES-CBC (SHA-1 and SHA-256/384), in the order iOS 12.2 sends them.
    static let applePFSWithCBCSHA2: [UInt16] = [0xC02C, 0xC02B, 0xC024, 0xC023, 0xC00A, 0xC009, 0xCCA9, 0xC030, 0xC02F, 0xC028, 0xC027,
                                                0xC014, 0xC013, 0xCCA8]
    /// Apple's `CiphersuitesPFS` from Security-60158 (iOS/macOS 15.4/12.3 on): the CBC-SHA256/384 suites gone.
    static let applePFS: [UInt16] = [0xC02C, 0xC02B, 0xCCA9, 0xC030, 0xC02F, 0xCCA8, 0xC00A, 0xC009, 0xC014, 0xC013]
    /// X25519, P-256, P-384, P-521 (key share: X25519).
    static let appleGroups: [UInt16] = [0x001D, 0x0017, 0x0018, 0x0019]
    /// ecdsa_secp256r1_sha256, rsa_pss_rsae_sha256, rsa_pkcs1_sha256, ecdsa_secp384r1_sha384,
    /// ecdsa_sha1, rsa_pss_rsae_sha384 (twice, as Apple sends it), rsa_pkcs1_sha384,
    /// rsa_pss_rsae_sha512, rsa_pkcs1_sha512, rsa_pkcs1_sha1: no ed25519, no ecdsa_secp521r1_sha512.
    static let appleSchemes: [UInt16] = [0x0403, 0x0804, 0x0401, 0x0503, 0x0203, 0x0805, 0x0805, 0x0501, 0x0806, 0x0601, 0x0201]
    /// OkHttp's APPROVED_CIPHER_SUITES (MODERN_TLS and COMPATIBLE_TLS), in OkHttp's order.
    static let okhttpApproved: [UInt16] = [0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8, 0xC013, 0xC014,
                                           0x009C, 0x009D, 0x002F, 0x0035, 0x000A]
    /// BoringSSL's default groups (X25519, P-256, P-384) and verify signature algorithms.
    static let boringGroups: [UInt16] = [0x001D, 0x0017, 0x0018]
    static let boringSchemes: [UInt16] = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601, 0x0201]

    static let appleSources = [
        "Apple Security (APSL-2.0), protocol/SecProtocolInternal.h CiphersuitesPFS/CiphersuitesTLS13 and protocol/SecProtocolConfiguration.m (ATS: TLS 1.2 minimum, RSA 2048, ECDSA 256, SHA-256)",
        "developer.apple.com/forums/thread/674462 (an iOS 14.2 ClientHello: signature schemes, no ed25519)",
        "developer.apple.com/documentation/security/preventing-insecure-network-connections (ATS requirements)",
    ]
    static let androidSources = [
        "square/okhttp (Apache-2.0) ConnectionSpec.kt: MODERN_TLS = APPROVED_CIPHER_SUITES, TLS 1.3 and 1.2; the platform socket's enabled suites intersected",
        "BoringSSL ssl/extensions.cc kDefaultGroups and kVerifySignatureAlgorithms",
        "developer.android.com/reference/javax/net/ssl/SSLSocket (suites and protocols enabled per API level)",
    ]

    /// Every profile, iOS first, then Android, OkHttp's specs and the control.
    public static let all: [TLSClientProfile] = [
        TLSClientProfile(id: "ios-12", platform: .iOS, name: "iOS 12.0–12.1 URLSession (ATS)", firstOS: [12, 0], lastOS: [12, 1],
                         versions: [0x0303], suites: applePFSWithCBCSHA2, groups: appleGroups, keyShareGroups: [],
                         signatureSchemes: appleSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: .ats, sources: appleSources),
        TLSClientProfile(id: "ios-12.2", platform: .iOS, name: "iOS 12.2–14 URLSession (ATS)", firstOS: [12, 2], lastOS: [14, 99],
                         versions: [0x0304, 0x0303], suites: [0x1303, 0x1301, 0x1302] + applePFSWithCBCSHA2, groups: appleGroups,
                         keyShareGroups: [0x001D], signatureSchemes: appleSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: .ats,
                         sources: appleSources + ["iOS 12.2 is the first Apple release whose ClientHello offers TLS 1.3 (0x0304)"]),
        TLSClientProfile(id: "ios-15", platform: .iOS, name: "iOS 15.0–15.3 URLSession (ATS)", firstOS: [15, 0], lastOS: [15, 3],
                         versions: [0x0304, 0x0303], suites: tls13Suites + applePFSWithCBCSHA2, groups: appleGroups,
                         keyShareGroups: [0x001D], signatureSchemes: appleSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: .ats,
                         sources: appleSources),
        TLSClientProfile(id: "ios-17", platform: .iOS, name: "iOS 15.4–18 URLSession (ATS), iOS 17 among them", firstOS: [15, 4], lastOS: [18, 99],
                         versions: [0x0304, 0x0303], suites: tls13Suites + applePFS, groups: appleGroups,
                         keyShareGroups: [0x001D], signatureSchemes: appleSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: .ats,
                         sources: appleSources + ["Security-60158.100.133 (iOS 15.4/macOS 12.3) drops the ECDHE CBC-SHA256/384 suites from CiphersuitesPFS"]),
        TLSClientProfile(id: "android-7", platform: .android, name: "Android 7.0 (API 24), OkHttp MODERN_TLS", firstOS: [7, 0], lastOS: [7, 0],
                         versions: [0x0303], suites: [0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035],
                         groups: [0x0017], keyShareGroups: [],
                         signatureSchemes: [0x0601, 0x0603, 0x0501, 0x0503, 0x0401, 0x0403, 0x0301, 0x0303, 0x0201, 0x0203],
                         alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: androidSources + ["Android 7.0's BoringSSL offers secp256r1 as its only group (X25519 came with 7.1)"]),
        TLSClientProfile(id: "android-9", platform: .android, name: "Android 7.1–9 (API 25–28), OkHttp MODERN_TLS", firstOS: [7, 1], lastOS: [9, 0],
                         versions: [0x0303], suites: [0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0xC013, 0xC014, 0x009C, 0x009D, 0x002F, 0x0035],
                         groups: boringGroups, keyShareGroups: [], signatureSchemes: boringSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: androidSources + ["developer.android.com/about/versions/10/behavior-changes-all: TLS 1.3 enabled by default from Android 10"]),
        TLSClientProfile(id: "android-10", platform: .android, name: "Android 10–11 (API 29–30), OkHttp MODERN_TLS", firstOS: [10, 0], lastOS: [11, 0],
                         versions: [0x0304, 0x0303], suites: okhttpApproved, groups: boringGroups, keyShareGroups: [0x001D],
                         signatureSchemes: boringSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: androidSources + ["developer.android.com/about/versions/10/behavior-changes-all: TLS 1.3 enabled by default"]),
        TLSClientProfile(id: "android-12", platform: .android, name: "Android 12–13 (API 31–33), OkHttp MODERN_TLS", firstOS: [12, 0], lastOS: [13, 0],
                         versions: [0x0304, 0x0303], suites: [0x1301, 0x1302, 0x1303, 0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0xC013, 0xC014,
                                                              0x009C, 0x009D, 0x002F, 0x0035],
                         groups: boringGroups, keyShareGroups: [0x001D], signatureSchemes: boringSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: androidSources),
        TLSClientProfile(id: "android-14", platform: .android, name: "Android 14 and later (API 34+), OkHttp MODERN_TLS (inferred from 12)", firstOS: [14, 0], lastOS: nil,
                         versions: [0x0304, 0x0303], suites: [0x1301, 0x1302, 0x1303, 0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0xC013, 0xC014,
                                                              0x009C, 0x009D, 0x002F, 0x0035],
                         groups: boringGroups, keyShareGroups: [0x001D], signatureSchemes: boringSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: androidSources + ["no public capture of Android 14+: the Android 12 offer, to be confirmed by a capture"]),
        TLSClientProfile(id: "okhttp-modern", platform: .android, name: "OkHttp MODERN_TLS (its own suite order, TLS 1.3 stack)", firstOS: [10, 0], lastOS: nil,
                         versions: [0x0304, 0x0303], suites: okhttpApproved, groups: boringGroups, keyShareGroups: [0x001D],
                         signatureSchemes: boringSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: [androidSources[0], androidSources[1], "square/okhttp docs/security/tls_configuration_history.md"]),
        TLSClientProfile(id: "okhttp-compatible", platform: .android, name: "OkHttp COMPATIBLE_TLS (TLS 1.0–1.3)", firstOS: [10, 0], lastOS: nil,
                         versions: [0x0304, 0x0303, 0x0302, 0x0301], suites: okhttpApproved, groups: boringGroups, keyShareGroups: [0x001D],
                         signatureSchemes: boringSchemes, alpn: ["h2", "http/1.1"], certificatePolicy: nil,
                         sources: [androidSources[0], androidSources[1], "square/okhttp docs/security/tls_configuration_history.md"]),
        TLSClientProfile(id: "curl-openssl-3", platform: .library, name: "curl on OpenSSL 3.0 (defaults; the control)", firstOS: [3, 0], lastOS: nil,
                         versions: [0x0304, 0x0303, 0x0302, 0x0301],
                         suites: [0x1302, 0x1303, 0x1301, 0xC02C, 0xC030, 0x009F, 0xCCA9, 0xCCA8, 0xCCAA, 0xC02B, 0xC02F, 0x009E, 0xC024, 0xC028, 0x006B,
                                  0xC023, 0xC027, 0x0067, 0xC00A, 0xC014, 0x0039, 0xC009, 0xC013, 0x0033, 0x009D, 0x009C, 0x003D, 0x003C, 0x0035, 0x002F, 0x00FF],
                         groups: [0x001D, 0x0017, 0x001E, 0x0019, 0x0018, 0x0100, 0x0101, 0x0102, 0x0103, 0x0104], keyShareGroups: [0x001D],
                         signatureSchemes: [0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0809, 0x080A, 0x080B, 0x0804, 0x0805, 0x0806, 0x0401, 0x0501,
                                            0x0601, 0x0303, 0x0301, 0x0302, 0x0402, 0x0502, 0x0602],
                         alpn: [], certificatePolicy: nil,
                         sources: ["OpenSSL 3.0 ssl/t1_lib.c default groups and signature algorithms; `openssl ciphers -V DEFAULT` (OpenSSL 3.0.22) without PSK/SRP"]),
    ]

    /// The profile with this id.
    public static func profile(_ id: String) -> TLSClientProfile? { all.first { $0.id == id } }
}
