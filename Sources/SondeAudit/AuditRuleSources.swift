/// Where each rule the audit applies is published (docs/audit.md quotes them).
enum AuditRuleSources {
    /// The client simulation's profile table and its sources (docs/audit.md, "Handshake simulation").
    static let clientProfiles = "docs/audit.md#handshake-simulation-tlsclients"
    /// "Requirements for Connecting Using ATS" (NSAppTransportSecurity, Information Property List):
    /// TLS 1.2, the forward-secret ECDHE AES suites listed, SHA-256 and RSA ≥ 2048 / ECC ≥ 256.
    static let ats = "https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity"
    /// "Requirements for trusted certificates in iOS 13 and macOS 10.15": RSA ≥ 2048, SHA-2, the
    /// DNS name in the SAN (not the CN), serverAuth EKU, at most 825 days.
    static let iOS13Certificates = "https://support.apple.com/103769"
    /// "About upcoming limits on trusted certificates": at most 398 days for certificates from
    /// preinstalled roots issued from 2020-09-01; user- or administrator-added roots are not affected.
    static let validity398 = "https://support.apple.com/102028"
    /// "Apple's Certificate Transparency policy": 2 SCTs for lifetimes up to 180 days, 3 up to 398.
    static let certificateTransparency = "https://support.apple.com/103214"
    /// Android's network security configuration: which CAs an app trusts by default.
    static let androidTrust = "https://developer.android.com/privacy-and-security/security-config"
    /// RFC 6797: HTTP Strict Transport Security.
    static let hsts = "https://www.rfc-editor.org/rfc/rfc6797"
    /// Mozilla's HTTP Observatory scoring: an HSTS max-age under six months is penalised
    /// (testssl.sh's HSTS_MIN is 180 days).
    static let hstsMaxAge = "https://github.com/mozilla/http-observatory/blob/main/httpobs/docs/scoring.md"
    /// RFC 5246 §7.4.2: "each following certificate MUST directly certify the one preceding it"
    /// (RFC 8446 §4.4.2 makes it a SHOULD for TLS 1.3).
    static let certificateOrder = "https://www.rfc-editor.org/rfc/rfc5246#section-7.4.2"
    /// RFC 9110 §15: status codes (4xx client errors, 5xx server errors).
    static let statusCodes = "https://www.rfc-editor.org/rfc/rfc9110#section-15"
    /// RFC 6066 §8: the certificate status request (OCSP stapling).
    static let ocspStapling = "https://www.rfc-editor.org/rfc/rfc6066#section-8"
    /// Android's `NetworkSecurityConfig.createBaseConfig`: apps targeting API 27 or lower allow
    /// cleartext by default (so API 28+ do not).
    static let androidCleartext = "https://developer.android.com/reference/android/security/net/config/NetworkSecurityConfig"
    /// RFC 9110 §8.4 (Content-Encoding) with §12.5.3 (Accept-Encoding): the codings a client accepts.
    static let contentCoding = "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.3"
    /// RFC 9110 §12.5.5: Vary, which an origin server SHOULD send when it varies by a request header.
    static let vary = "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.5"
    /// RFC 9111 §4.3: validating a stored response (a conditional request).
    static let caching = "https://www.rfc-editor.org/rfc/rfc9111#section-4.3"
    /// RFC 9110 §15.4.5: 304 Not Modified, the answer to a conditional GET whose validator matches.
    static let conditional304 = "https://www.rfc-editor.org/rfc/rfc9110#section-15.4.5"
    /// RFC 9112 §9.3: persistent connections (HTTP/1.1's default), and Connection: close.
    static let persistence = "https://www.rfc-editor.org/rfc/rfc9112#section-9.3"
    /// RFC 9113 §3.2: HTTP/2 for https URIs, by TLS ALPN "h2".
    static let http2 = "https://www.rfc-editor.org/rfc/rfc9113#section-3.2"
    /// RFC 7838 §3: the Alt-Svc header field.
    static let altSvc = "https://www.rfc-editor.org/rfc/rfc7838#section-3"
    /// RFC 9114 §3.1.1: HTTP/3 discovered through an h3 alternative service.
    static let http3 = "https://www.rfc-editor.org/rfc/rfc9114#section-3.1.1"
    /// RFC 9110 §15.4: redirection 3xx.
    static let redirects = "https://www.rfc-editor.org/rfc/rfc9110#section-15.4"
    /// RFC 9110 §17.9: disclosure of sensitive information in URIs.
    static let sensitiveURIs = "https://www.rfc-editor.org/rfc/rfc9110#section-17.9"
    /// RFC 6750 §5.3: "Don't pass bearer tokens in page URLs".
    static let bearerInURL = "https://www.rfc-editor.org/rfc/rfc6750#section-5.3"
    /// RFC 9110 §10.2.3 (Retry-After: delay-seconds or an HTTP-date), with RFC 6585 §4 (429 Too
    /// Many Requests MAY include it) and RFC 9110 §15.6.4 (503).
    static let retryAfter = "https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3"
    /// Lighthouse's mobile throttling (1.6 Mbit/s down, 150 ms RTT): the link the payload time is
    /// stated on.
    static let payloadThrottling = "https://github.com/GoogleChrome/lighthouse/blob/main/docs/throttling.md"
    /// RFC 9113 §9.1.1: connection reuse for another origin the certificate covers.
    static let coalescing = "https://www.rfc-editor.org/rfc/rfc9113#section-9.1.1"
    /// RFC 9110 §15.5.20: 421 Misdirected Request, and the retry on another connection.
    static let misdirected = "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.20"
    /// Apple, "Supporting IPv6 DNS64/NAT64 Networks" (Networking Overview): apps must work on
    /// IPv6-only networks; App Review tests on one.
    static let ipv6Only = "https://developer.apple.com/library/archive/documentation/NetworkingInternetWeb/Conceptual/NetworkingOverview/UnderstandingandPreparingfortheIPv6Transition/UnderstandingandPreparingfortheIPv6Transition.html"
    /// Apple DTS, "IPv6 Address Synthesis on Older Systems" (forum thread 47220): URLSession
    /// synthesizes an IPv6 address for an IPv4 literal from iOS 9.2; use a DNS name.
    static let ipv4Literals = "https://developer.apple.com/forums/thread/47220"
}
