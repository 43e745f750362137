/// Where each rule the audit applies is published (docs/audit.md quotes them).
enum AuditRuleSources {
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
    /// RFC 6066 §8: the certificate status request (OCSP stapling).
    static let ocspStapling = "https://www.rfc-editor.org/rfc/rfc6066#section-8"
}
