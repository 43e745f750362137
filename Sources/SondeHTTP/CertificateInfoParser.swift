import SondeCore

/// Turns libcurl's CURLINFO_CERTINFO lines ("Subject:CN = localhost", "Expire date:Nov 21 21:00:00 2027 GMT",
/// "Cert:-----BEGIN CERTIFICATE-----…", …) into `PeerCertificate` values: the text fields as libcurl
/// wrote them, and the facts of the "Cert:" PEM's DER (`CertificateDERFacts`). Unknown lines are
/// ignored; unparseable dates and a PEM that does not decode become nil.
public enum CertificateInfoParser {
    public static func parse(_ certificates: [[String]]) -> [PeerCertificate] {
        certificates.map { lines in
            let fields = Self.fields(lines)
            let facts = fields["Cert"].flatMap { CertificateDERFacts.cached(pem: $0) }
            return PeerCertificate(
                subject: fields["Subject"] ?? "", issuer: fields["Issuer"] ?? "",
                serialNumber: fields["Serial Number"], signatureAlgorithm: fields["Signature Algorithm"],
                publicKeyAlgorithm: fields["Public Key Algorithm"],
                notBefore: fields["Start date"].flatMap(parseOpenSSLDate),
                notAfter: fields["Expire date"].flatMap(parseOpenSSLDate),
                fingerprintSHA256: facts?.fingerprintSHA256, dnsNames: facts?.dnsNames, ipAddresses: facts?.ipAddresses,
                subjectDN: facts?.subjectDN, issuerDN: facts?.issuerDN)
        }
    }

    /// One certificate's CURLINFO_CERTINFO lines as name → value ("Subject:CN = x" → "Subject": "CN = x");
    /// a line without a colon is skipped, a repeated name keeps its last value.
    public static func fields(_ lines: [String]) -> [String: String] {
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        return fields
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses OpenSSL's ASN1_TIME_print form, "Nov  1 21:00:00 2026 GMT" (also "2026-11-01 21:00:00 GMT").
    public static func parseOpenSSLDate(_ text: String) -> Timestamp? {
        let parts = text.split(separator: " ")
        if parts.count == 5, let month = months.firstIndex(of: String(parts[0])), parts[4] == "GMT" {
            let time = parts[2].split(separator: ":")
            guard time.count == 3, let day = Int(parts[1]), let year = Int(parts[3]),
                  let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2].prefix(2)) else { return nil }
            return Timestamp(utcYear: year, month: month + 1, day: day, hour: hour, minute: minute, second: second)
        }
        if parts.count == 3, parts[2] == "GMT" {
            return Timestamp(iso8601: parts[0] + "T" + parts[1] + "Z")
        }
        return nil
    }
}
