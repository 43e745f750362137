import SondeCore
import SondeReport

/// The series of one `/probe`, under blackbox_exporter's names, help texts and labels where the
/// meaning is the same (so that its dashboards and alerts keep working), and sonde's own beside
/// them (`sonde_probe_*`): every phase of every hop as libcurl measured it, the protocol, the
/// connection's reuse. Written sorted by name, as blackbox's registry writes them.
struct BlackboxExposition {
    struct Series {
        var name: String
        var help: String
        var labels: [(String, String)]
        var value: Double
    }

    private(set) var series: [Series] = []

    /// Sets (or replaces) the series `name` with `labels`.
    mutating func set(_ name: String, _ value: Double, labels: [(String, String)] = []) {
        let help = Self.help[name] ?? ""
        if let index = series.firstIndex(where: { $0.name == name && $0.labels.elementsEqual(labels, by: { $0 == $1 }) }) {
            series[index].value = value
        } else {
            series.append(Series(name: name, help: help, labels: labels, value: value))
        }
    }

    /// The http prober's series at 0, as blackbox registers them before it probes: a failed probe still has them.
    mutating func prepareHTTP() {
        for name in ["probe_failed_due_to_regex", "probe_http_content_length", "probe_http_redirects", "probe_http_ssl",
                     "probe_http_status_code", "probe_http_uncompressed_body_length", "probe_http_version"] {
            set(name, 0)
        }
        for phase in Phase.blackboxPhases { set("probe_http_duration_seconds", 0, labels: [("phase", phase)]) }
    }


    /// The task's figures: blackbox's phases summed over every hop (its resolve is the lookup
    /// before the first hop plus libcurl's for later hops), the final response's facts, and sonde's own series.
    mutating func record(_ task: ProbeTask, resolveSeconds: Double) {
        let hops = task.transactionMetrics
        func total(_ phase: Phase) -> Double { hops.reduce(0) { $0 + ($1.phases[phase] ?? 0) } / 1000 }
        // blackbox's phases (`Phase.blackboxPhase`), summed over every hop; resolve adds the lookup before the first.
        for label in Phase.blackboxPhases {
            let seconds = Phase.phases(inBlackboxPhase: label).reduce(0) { $0 + total($1) }
            set("probe_http_duration_seconds", seconds + (label == Phase.dns.blackboxPhase ? resolveSeconds : 0), labels: [("phase", label)])
        }
        set("probe_http_redirects", Double(task.redirectCount))
        for phase in Phase.allCases {
            set("sonde_probe_phase_seconds", total(phase), labels: [("phase", phase.name)])
        }
        set("sonde_probe_transactions", Double(hops.count))
        set("sonde_probe_transactions_reused", Double(hops.filter(\.isReusedConnection).count))
        if let error = task.error { set("sonde_probe_error_info", 1, labels: [("code", error.code.rawValue)]) }
        guard let last = hops.last else { return }
        let ssl = last.request.url.lowercased().hasPrefix("https:")
        set("probe_http_ssl", ssl ? 1 : 0)
        if let protocolName = last.networkProtocolName {
            set("sonde_probe_http_protocol_info", 1, labels: [("protocol", protocolName)])
        }
        guard let response = last.response else { return }
        set("probe_http_status_code", Double(response.statusCode))
        set("probe_http_version", Self.versionNumber(last.networkProtocolName))
        let length = response.headers.last { $0.name.lowercased() == "content-length" }.flatMap { Int64($0.value.trimmingCharacters(in: .whitespaces)) }
        set("probe_http_content_length", Double(length ?? -1))
        set("probe_http_uncompressed_body_length", Double(last.countOfResponseBodyBytesReceived))
        if ssl {
            if let version = last.negotiatedTLSProtocolVersion {
                set("probe_tls_version_info", 1, labels: [("version", Self.tlsVersionText(version))])
            }
            if let cipher = last.negotiatedTLSCipherSuite { set("sonde_probe_tls_cipher_info", 1, labels: [("cipher", cipher)]) }
            let expiries = last.peerCertificates.compactMap(\.notAfter).map { Double($0.microsecondsSince1970) / 1e6 }
            if let earliest = expiries.min() {
                set("probe_ssl_earliest_cert_expiry", earliest)
                set("probe_ssl_last_chain_expiry_timestamp_seconds", earliest)
            }
            if let leaf = last.peerCertificates.first, let labels = Self.chainInfoLabels(leaf) {
                set("probe_ssl_last_chain_info", 1, labels: labels)
            }
        }
    }

    /// The exposition text, sorted by name, and within a name by label values (in the order of the
    /// labels), as client_golang's registry sorts a family's series (`phase="resolve"` before
    /// `phase="rtt"` before `phase="setup"`).
    var text: String {
        var families = PrometheusFamilies()
        let ordered = series.sorted { a, b in
            a.name != b.name ? a.name < b.name : a.labels.map(\.1).lexicographicallyPrecedes(b.labels.map(\.1))
        }
        for entry in ordered { families.add(entry.name, "gauge", entry.help, [(entry.labels, entry.value)]) }
        return families.text
    }

    // MARK: Names and values

    /// blackbox 0.23's `probe_ssl_last_chain_info` labels of the leaf: its DER's SHA-256, subject and
    /// issuer as Go writes them, its DNS names joined by commas (IP addresses left out, as Go's
    /// `DNSNames` leaves them). nil when libcurl gave no certificate DER that parsed.
    static func chainInfoLabels(_ leaf: PeerCertificate) -> [(String, String)]? {
        guard let fingerprint = leaf.fingerprintSHA256, let subject = leaf.subjectDN, let issuer = leaf.issuerDN else { return nil }
        // In blackbox's order of writing them (client_golang sorts label names).
        return [("fingerprint_sha256", fingerprint), ("issuer", issuer), ("subject", subject),
                ("subjectalternative", (leaf.dnsNames ?? []).joined(separator: ","))]
    }

    /// blackbox's `probe_http_version`: 1.1, 2, 3 (0 when unknown).
    static func versionNumber(_ protocolName: String?) -> Double {
        switch protocolName {
        case "http/1.0": return 1.0
        case "http/1.1": return 1.1
        case "h2", "h2c": return 2
        case "h3": return 3
        default: return 0
        }
    }

    /// `HTTP/1.1`, `HTTP/2.0`, `HTTP/3.0`, as blackbox's `valid_http_versions` spells them.
    static func versionText(_ protocolName: String?) -> String {
        switch protocolName {
        case "http/1.0": return "HTTP/1.0"
        case "http/1.1": return "HTTP/1.1"
        case "h2", "h2c": return "HTTP/2.0"
        case "h3": return "HTTP/3.0"
        default: return "unknown"
        }
    }

    /// `HTTP/2` and `HTTP/2.0` are one version.
    static func sameVersion(_ a: String, _ b: String) -> Bool {
        func normal(_ text: String) -> String { text.hasSuffix(".0") && text.count == 8 ? String(text.dropLast(2)) : text }
        return normal(a) == normal(b)
    }

    /// OpenSSL's `TLSv1.3` as Go names it: `TLS 1.3`.
    static func tlsVersionText(_ version: String) -> String {
        version.hasPrefix("TLSv") ? "TLS " + version.dropFirst(4) : version
    }

    /// FNV-1a, 32 bits, of the address's bytes (4 for IPv4, 16 for IPv6): blackbox's `probe_ip_addr_hash`.
    static func fnv32a(_ bytes: [UInt8]) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }

    static let help: [String: String] = [
        "probe_dns_lookup_time_seconds": "Returns the time taken for probe dns lookup in seconds",
        "probe_dns_duration_seconds": "Duration of DNS request by phase",
        "probe_dns_answer_rrs": "Returns number of entries in the answer resource record list",
        "probe_dns_authority_rrs": "Returns number of entries in the authority resource record list",
        "probe_dns_additional_rrs": "Returns number of entries in the additional resource record list",
        "probe_dns_query_succeeded": "Displays whether or not the query was executed successfully",
        "probe_dns_serial": "Returns the serial number of the zone",
        "probe_duration_seconds": "Returns how long the probe took to complete in seconds",
        "probe_failed_due_to_regex": "Indicates if probe failed due to regex",
        "probe_grpc_duration_seconds": "Duration of gRPC request by phase",
        "probe_grpc_healthcheck_response": "Response HealthCheck response",
        "probe_grpc_ssl": "Indicates if SSL was used for the connection",
        "probe_grpc_status_code": "Response gRPC status code",
        "probe_icmp_duration_seconds": "Duration of icmp request by phase",
        "probe_icmp_reply_hop_limit": "Replied packet hop limit (TTL for ipv4)",
        "probe_http_content_length": "Length of http content response",
        "probe_http_duration_seconds": "Duration of http request by phase, summed over all redirects",
        "probe_http_redirects": "The number of redirects",
        "probe_http_ssl": "Indicates if SSL was used for the final redirect",
        "probe_http_status_code": "Response HTTP status code",
        "probe_http_uncompressed_body_length": "Length of uncompressed response body",
        "probe_http_version": "Returns the version of HTTP of the probe response",
        "probe_ip_addr_hash": "Specifies the hash of IP address. It's useful to detect if the IP address changes.",
        "probe_ip_protocol": "Specifies whether probe ip protocol is IP4 or IP6",
        "probe_ssl_earliest_cert_expiry": "Returns last SSL chain expiry in unixtime",
        "probe_ssl_last_chain_expiry_timestamp_seconds": "Returns last SSL chain expiry in timestamp",
        "probe_ssl_last_chain_info": "Contains SSL leaf certificate information",
        "probe_success": "Displays whether or not the probe was a success",
        "probe_tls_version_info": "Returns the TLS version used or NaN when unknown",
        "sonde_probe_phase_seconds": "sonde: each phase as libcurl measured it (URLSessionTaskTransactionMetrics), summed over all redirects",
        "sonde_probe_transactions": "sonde: transactions of the probe (each redirect hop is one)",
        "sonde_probe_transactions_reused": "sonde: transactions on a reused connection",
        "sonde_probe_error_info": "sonde: the classified error that failed the probe",
        "sonde_probe_http_protocol_info": "sonde: the negotiated protocol of the final transaction (http/1.1, h2, h3)",
        "sonde_probe_tls_cipher_info": "sonde: the TLS cipher suite of the final transaction",
    ]
}
