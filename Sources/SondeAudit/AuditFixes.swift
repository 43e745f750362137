import SondeCore

/// How to fix each finding, one line per id: what the server's operator changes so that the
/// finding passes. Given to every finding at `warn` or `fail` that has none of its own
/// (`AuditFinding.fix`); a finding that passes or is only informational has none.
enum AuditFixes {
    static let lines: [String: String] = [
        "tls.min-version": "Offer TLS 1.2 and 1.3 only (nginx: ssl_protocols TLSv1.2 TLSv1.3;).",
        "tls.forward-secrecy": "Offer ECDHE suites with AES-GCM (and TLS 1.3), and drop the RSA key-exchange suites (nginx: ssl_ciphers ECDHE+AESGCM:ECDHE+CHACHA20;).",
        "tls.clients": "Offer TLS 1.2 and 1.3, ECDHE suites with AES-GCM and ChaCha20, X25519 and P-256, and an RSA 2048 or ECDSA P-256 certificate (the finding's own fix names the change each failing client needs).",
        "tls.ocsp-stapling": "Staple a valid OCSP response from the issuing CA (nginx: ssl_stapling on; ssl_stapling_verify on; with the chain in ssl_trusted_certificate).",
        "cert.chain": "Serve the leaf and every intermediate up to a root the platforms trust (the CA's full-chain file); on every host the redirects reach.",
        "cert.chain-order": "Serve the leaf first, then each certificate that issued the one before it; leave out the root and certificates of other chains.",
        "cert.key-size": "Reissue with an RSA key of 2048 bits or more or an ECDSA P-256/P-384 key, under intermediates that meet the same rule.",
        "cert.signature": "Reissue the certificate, and use intermediates, signed with SHA-256 or better.",
        "cert.san": "Put every host name clients use (www. included) in the certificate's subjectAltName, or redirect only to names it covers.",
        "cert.eku": "Reissue with extendedKeyUsage serverAuth.",
        "cert.validity": "Reissue for at most 398 days (825 under a private root).",
        "cert.expiry": "Renew the certificate (and any intermediate) before it expires; automate renewal (ACME).",
        "cert.ct": "Use a CA that embeds SCTs from enough CT logs (2 for ≤ 180 days, 3 for more).",
        "hsts": "Send Strict-Transport-Security: max-age=31536000 (at least 15552000 s, 180 days) on every https response.",
        "http.cleartext": "Give apps the https URL; serve http only as a redirect to https, or not at all.",
        "http.redirects": "Point clients at the final https URL; never redirect from https to http; keep to one redirect or none.",
        "url.secrets": "Send credentials and tokens in the Authorization header, not in URLs or Location headers.",
        "http.status": "Make the URL answer 2xx with its whole body in time; audit a URL that works (give credentials to an API that needs them).",
        "http.compression": "Compress text and JSON responses (gzip or br) and send Vary: Accept-Encoding with them.",
        "http.caching": "Send ETag or Last-Modified and answer a matching conditional request with 304, with a Cache-Control lifetime where content allows.",
        "http.keep-alive": "Keep connections open (no Connection: close; nginx: keepalive_timeout 75s;).",
        "http.h2": "Enable HTTP/2 on the TLS listener (ALPN h2; nginx: http2 on;).",
        "h3.works": "Make the advertised HTTP/3 alternative answer over QUIC (UDP open), or stop advertising it in Alt-Svc.",
        "http.payload-size": "Make the response smaller: paginate, compress, or send only the fields the app needs.",
        "retry-after": "Send Retry-After (seconds or an HTTP-date) with every 429 and 503.",
        "http.coalescing": "Serve every name in the certificate on the connection of the others (no 421), or take names not served there out of the certificate.",
        "ipv6": "Publish AAAA only for addresses that answer, and hand out host names, not IPv4 literals.",
        "ipv6.app-review": "Hand out host names, never IPv4 literals, in Location, Alt-Svc and response bodies; give every host a client is sent to an A or AAAA record, and test with sonde audit --link nat64.",
    ]

    /// `finding` with its fix line when it is a `warn` or `fail` without one.
    static func adding(to finding: AuditFinding) -> AuditFinding {
        guard finding.severity >= .warn, finding.fix == nil, let line = lines[finding.id] else { return finding }
        var fixed = finding
        fixed.fix = line
        return fixed
    }
}
