import Testing
@testable import SondeHTTP

/// The DER facts of a peer certificate against what blackbox_exporter 0.23 (Go's crypto/x509)
/// printed for the same certificate: `probe_ssl_last_chain_info{fingerprint_sha256,issuer,subject,subjectalternative}`
/// from a probe of a Python TLS server presenting it (recorded once; made with `openssl req -x509
/// -subj "/C=DE/O=Acme, Inc./OU=b/OU=a/CN=#host/emailAddress=x@y.z" -multivalue-rdn` and DNS and IP
/// alternative names).
@Suite struct CertificateDERFactsTests {
    static let pem = """
-----BEGIN CERTIFICATE-----
MIICOzCCAeKgAwIBAgIUPbxtCWyRyv2ZioWZuKVQ3RoSijgwCgYIKoZIzj0EAwIw
YDELMAkGA1UEBhMCREUxEzARBgNVBAoMCkFjbWUsIEluYy4xCjAIBgNVBAsMAWIx
CjAIBgNVBAsMAWExDjAMBgNVBAMMBSNob3N0MRQwEgYJKoZIhvcNAQkBFgV4QHku
ejAeFw0yNjExMjQxMTEwNDJaFw0zNjExMjExMTEwNDJaMGAxCzAJBgNVBAYTAkRF
MRMwEQYDVQQKDApBY21lLCBJbmMuMQowCAYDVQQLDAFiMQowCAYDVQQLDAFhMQ4w
DAYDVQQDDAUjaG9zdDEUMBIGCSqGSIb3DQEJARYFeEB5LnowWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAATmxNFNlNt6U2Fs1wm5C16ziJFTgKxeciGAEUcFOzRJyurz
ZpKDD6/SJTb0wuOJ01R2cUrb0F6K0ECCrhMV4KOao3oweDAdBgNVHQ4EFgQUCpO9
ihyZMLXa5J3OgFgnsOzfFGMwHwYDVR0jBBgwFoAUCpO9ihyZMLXa5J3OgFgnsOzf
FGMwDwYDVR0TAQH/BAUwAwEB/zAlBgNVHREEHjAcgglhLmV4YW1wbGWCCWIuZXhh
bXBsZYcEfwAAATAKBggqhkjOPQQDAgNHADBEAiBU69JA0oZ7qJECIwwWVk97jQeL
kG64DMktCaG44aWVzAIgUW8vW2niYF+IyNJjbSlYsW7C+Lqbo/3udHJTa/j5kG0=
-----END CERTIFICATE-----
"""

    @Test func matchesWhatBlackboxPrintedForTheSameCertificate() throws {
        let facts = try #require(CertificateDERFacts(pem: Self.pem))
        #expect(facts.fingerprintSHA256 == "699c6dd1d4d313decb43cd4d27b8459bcc616ad609abc17a6f0af532ff6c5e7f")
        // Go's field order reversed, both OUs in one RDN, escapes, the email as OID=#DER (a UTF8String: '@' is not printable).
        let name = ##"CN=\#host,OU=b+OU=a,O=Acme\, Inc.,C=DE,1.2.840.113549.1.9.1=#0c057840792e7a"##
        #expect(facts.subjectDN == name)
        #expect(facts.issuerDN == name)
        #expect(facts.dnsNames == ["a.example", "b.example"])  // the IP address is not a DNS name
        #expect(facts.ipAddresses == ["127.0.0.1"])
        #expect(CertificateDERFacts.ipText([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) == "::1")
        #expect(CertificateDERFacts.ipText([1, 2, 3]) == "010203")
    }

    @Test func libcurlsCertLineFillsThePeerCertificate() {
        let certificate = CertificateInfoParser.parse([["Subject:C = DE", "Cert:" + Self.pem + "\n"]])[0]
        #expect(certificate.fingerprintSHA256?.count == 64)
        #expect(certificate.dnsNames == ["a.example", "b.example"])
        #expect(certificate.ipAddresses == ["127.0.0.1"])
    }

    @Test func garbageGivesNoFactsAndNoTrap() {
        // Base64 that decodes, to bytes that are no certificate: a fingerprint, nothing else.
        let notACertificate = CertificateDERFacts(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----")
        #expect(notACertificate?.fingerprintSHA256.count == 64 && notACertificate?.subjectDN == nil)
        #expect(CertificateDERFacts(pem: "not a pem") == nil)
        let bytes: [UInt8] = [0x30, 0x82, 0xFF, 0xFF, 0x01]
        let facts = CertificateDERFacts(der: bytes)
        #expect(facts.fingerprintSHA256.count == 64 && facts.subjectDN == nil && facts.dnsNames == nil)
    }

    @Test func theCacheGivesWhatAParseGives() {
        for _ in 0..<2 {
            #expect(CertificateDERFacts.cached(pem: Self.pem) == CertificateDERFacts(pem: Self.pem))
            #expect(CertificateDERFacts.cached(pem: "not a pem") == nil)
        }
        #expect(CertificateDERFacts.cached(pem: Self.pem)?.subjectDN?.hasPrefix("CN=") == true)
    }

    /// Go's Marshal picks PrintableString only without '*' and '&' (marshal.go: rejectAsterisk,
    /// rejectAmpersand): an unknown attribute "a*b" is hex-encoded as a UTF8String, as blackbox prints it.
    @Test func asteriskAndAmpersandAreNotPrintableForGo() {
        #expect(GoDistinguishedName.isPrintable(UInt8(ascii: "a")) && GoDistinguishedName.isPrintable(UInt8(ascii: "?")))
        #expect(!GoDistinguishedName.isPrintable(UInt8(ascii: "*")) && !GoDistinguishedName.isPrintable(UInt8(ascii: "&")))
        #expect(!GoDistinguishedName.isPrintable(UInt8(ascii: "@")))
    }

    /// A PEM larger than a real certificate is parsed but not kept: a server rotating huge
    /// certificates cannot grow the cache.
    @Test func hugePEMsAreNotCached() {
        let huge = Self.pem + String(repeating: " ", count: CertificateDERFacts.maxCachedPEMLength)
        #expect(CertificateDERFacts.cached(pem: huge) == CertificateDERFacts(pem: huge))
    }

    @Test func goEscapesOnlyWhereGoDoes() {
        #expect(GoDistinguishedName.escape(" a#b, c ") == ##"\ a#b\, c\ "##)
        #expect(GoDistinguishedName.escape("#x") == ##"\#x"##)
        #expect(GoDistinguishedName.escape("a<b>;\"q\"+") == ##"a\<b\>\;\"q\"\+"##)
    }
}
