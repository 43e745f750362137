import CurlShim
import SondeCore

extension EasyHandle {
    /// The options every sonde transfer shares, probe or resume trial: protocols, user agent, HTTP
    /// version, timeouts, TLS verification, address family, resolve overrides, DoH and proxy.
    func configureTransport(_ options: ProbeOptions) throws(TaskError) {
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_USERAGENT, string: options.userAgent)
        // A header the user gave wins over the client's own (`clientAddedHeaders` is then empty).
        if let encoding = options.client.acceptEncoding, !options.clientAddedHeaders.isEmpty {
            try set(CURLOPT_ACCEPT_ENCODING, string: encoding)
            decodedBodyLimit = options.decodedBodyLimit
        } else {
            decodedBodyLimit = nil
        }
        switch options.httpVersion {
        case .automatic: break
        case .http1_1: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        case .http2: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        case .http2PriorKnowledge: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
        case .http3: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_3))
        case .http3Only: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_3ONLY))
        }
        if let timeout = options.timeoutMs { try set(CURLOPT_TIMEOUT_MS, timeout) }
        if let timeout = options.connectTimeoutMs { try set(CURLOPT_CONNECTTIMEOUT_MS, timeout) }
        if options.insecure {
            try set(CURLOPT_SSL_VERIFYPEER, 0)
            try set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let path = options.caCertPath {
            try set(CURLOPT_CAINFO, string: path)
        } else if let bundle = CurlLibrary.caBundleOverride {
            try set(CURLOPT_CAINFO, string: bundle)
        }
        if let pin = options.pinnedPublicKey { try set(CURLOPT_PINNEDPUBLICKEY, string: pin) }
        if let groups = options.tlsGroups { try set(CURLOPT_SSL_EC_CURVES, string: groups) }
        switch options.ipVersion {
        case .any: break
        case .v4: try set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4))
        case .v6: try set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6))
        }
        if !options.resolve.isEmpty { try setResolve(options.resolve) }
        if let doh = options.dohURL { try set(CURLOPT_DOH_URL, string: doh) }
        if let ports = options.localPorts {
            try set(CURLOPT_LOCALPORT, ports.lowerBound)
            try set(CURLOPT_LOCALPORTRANGE, ports.count)
        }
        // Only an explicit --proxy: the environment's proxy variables are ignored, so a report
        // never silently measures a proxy.
        try set(CURLOPT_PROXY, string: options.proxy ?? "")
        // libcurl's account of a failed QUIC attempt is only in its verbose text (QUICAttemptLog).
        if options.httpVersion.wantsHTTP3 { try collectText() }
    }
}

extension EasyHandle {
    /// What libcurl knows of the transfer that just failed with `code`, for `CurlErrorClassifier`.
    /// TCP counts as connected once libcurl has a local port for it: libcurl 7.88 leaves
    /// CURLINFO_CONNECT_TIME_T at 0 when the TLS handshake on top of it fails. Through a proxy
    /// (`viaProxy`) the TCP connection is the proxy's, and a stall may be its CONNECT, not TLS.
    /// TLS is pending when it never completed: no app-connect time, and either no pretransfer
    /// time (7.88) or a new connection (libcurl 8 sets the pretransfer time even when the
    /// handshake timed out; a reused connection has no app-connect time of its own and a
    /// pretransfer time). `overQUIC`: the transfer could only use QUIC (see `CurlFailure.overQUIC`).
    func failureFacts(_ code: CURLcode, url: String, redactor: Redactor, viaProxy: Bool, overQUIC: Bool) -> CurlFailure {
        let address = string(CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
        let remote = address.map { "\($0):\(long(CURLINFO_PRIMARY_PORT))" } ?? URLParts(url).map { "\($0.host):\($0.port)" }
        let tcpConnected = offset(CURLINFO_CONNECT_TIME_T) > 0 || long(CURLINFO_LOCAL_PORT) > 0
        let tlsPending = tcpConnected && !viaProxy && schemeIsHTTPS && offset(CURLINFO_APPCONNECT_TIME_T) == 0
            && (offset(CURLINFO_PRETRANSFER_TIME_T) == 0 || long(CURLINFO_NUM_CONNECTS) > 0)
        return CurlFailure(curlCode: Int(code.rawValue), detail: errorDetail, osErrno: Int32(long(CURLINFO_OS_ERRNO)),
                           verifyResult: long(CURLINFO_SSL_VERIFYRESULT), connected: tcpConnected, tlsPending: tlsPending,
                           url: redactor.redact(url: url), remote: remote, quicAttempt: quicAttempt.lines, overQUIC: overQUIC)
    }
}
