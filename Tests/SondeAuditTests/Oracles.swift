import Foundation

/// What an independent scanner said of one server: protocol versions, cipher suites by version
/// (as testsslCode, "xc02f"), and, where it reports them, chain, stapling and HSTS.
struct OracleView: Sendable, Equatable {
    var versions: Set<String> = []
    var ciphers: [String: Set<String>] = [:]
    var chainOK: Bool?
    var stapled: Bool?
    var hsts: Bool?
}

/// sslscan 2.x (`--xml=-`): versions and suites; stapling with `--ocsp`. It verifies no chain and
/// reads no HTTP header.
enum SSLScanOracle {
    static func view(port: Int) -> (OracleView, String) {
        let result = AuditCorpus.run("/usr/bin/sslscan", ["--no-colour", "--no-groups", "--no-heartbleed", "--no-fallback", "--no-renegotiation",
                                                          "--no-compression", "--ocsp", "--xml=-", "127.0.0.1:\(port)"], timeout: 120)
        var view = OracleView()
        for line in result.output.split(separator: "\n").map(String.init) {
            let attributes = Self.attributes(line)
            if line.contains("<protocol "), attributes["type"] == "tls", attributes["enabled"] == "1", let version = attributes["version"] {
                view.versions.insert("TLSv" + version)
            } else if line.contains("<cipher "), let version = attributes["sslversion"], let id = attributes["id"],
                      ["accepted", "preferred"].contains(attributes["status"] ?? "") {
                let name = version == "TLSv1.0" ? "TLSv1.0" : version
                view.ciphers[name, default: []].insert("x" + String(UInt16(id.dropFirst(2), radix: 16) ?? 0, radix: 16))
            }
        }
        // The OCSP section is in the text output only; the XML carries none, so stapling is read
        // from its plain text run.
        let text = AuditCorpus.run("/usr/bin/sslscan", ["--no-colour", "--no-cipher-details", "--no-ciphersuites", "--no-groups", "--no-heartbleed",
                                                        "--no-fallback", "--no-renegotiation", "--no-compression", "--ocsp", "127.0.0.1:\(port)"], timeout: 60)
        if text.output.contains("OCSP Response Status: successful") { view.stapled = true }
        else if text.output.contains("No OCSP response") || text.output.contains("OCSP response: no response sent") { view.stapled = false }
        return (view, result.output)
    }

    static func attributes(_ line: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(line)
        while let equals = rest.range(of: "=\"") {
            let before = rest[..<equals.lowerBound]
            let name = before.split(separator: " ").last.map(String.init) ?? ""
            let after = rest[equals.upperBound...]
            guard let close = after.firstIndex(of: "\"") else { break }
            result[name] = String(after[..<close])
            rest = after[after.index(after: close)...]
        }
        return result
    }
}

/// testssl.sh 3.0.8 (`--jsonfile`): versions (`-p`), suites per version (`-E`), chain of trust and
/// OCSP stapling (`-S`), HSTS (`-h`).
enum TestsslOracle {
    static func view(port: Int, caFile: String, directory: String) -> (OracleView, String) {
        let json = directory + "/testssl-\(port).json"
        unlink(json)
        let result = AuditCorpus.run("/usr/bin/testssl", ["--quiet", "--warnings", "off", "--color", "0", "--nodns", "min", "--add-ca", caFile,
                                                          "--jsonfile", json, "-p", "-E", "-S", "-h", "127.0.0.1:\(port)"], timeout: 600)
        var view = OracleView()
        guard let data = FileManager.default.contents(atPath: json),
              let entries = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            return (view, "no JSON from testssl: \(result.output.suffix(2000))")
        }
        let versionIDs = ["TLS1": "TLSv1.0", "TLS1_1": "TLSv1.1", "TLS1_2": "TLSv1.2", "TLS1_3": "TLSv1.3"]
        for entry in entries {
            guard let id = entry["id"] as? String, let finding = entry["finding"] as? String else { continue }
            if let version = versionIDs[id], finding.hasPrefix("offered") { view.versions.insert(version) }
            if id.hasPrefix("cipher-tls1") {
                // cipher-tls1_2_xc02f, cipher-tls1_xc013 (TLS 1.0), cipher-tls1_1_x2f
                let body = id.dropFirst("cipher-".count)
                guard let underscoreX = body.range(of: "_x", options: .backwards) else { continue }
                let protocolPart = String(body[..<underscoreX.lowerBound])
                let code = "x" + body[underscoreX.upperBound...]
                let version = ["tls1": "TLSv1.0", "tls1_1": "TLSv1.1", "tls1_2": "TLSv1.2", "tls1_3": "TLSv1.3"][protocolPart]
                if let version {
                    view.ciphers[version, default: []].insert(String(UInt16(code.dropFirst(), radix: 16).map { "x" + String($0, radix: 16) } ?? code))
                }
            }
            if id == "cert_chain_of_trust" { view.chainOK = finding.hasPrefix("passed") }
            if id == "OCSP_stapling" { view.stapled = finding.hasPrefix("offered") }
            if id == "HSTS" && finding.contains("not offered") { view.hsts = false }
            // "OK", or "MEDIUM": "max-age too short" (under testssl's HSTS_MIN, 180 days).
            if id == "HSTS_time" { view.hsts = (entry["severity"] as? String) == "OK" }
        }
        return (view, result.output)
    }
}
