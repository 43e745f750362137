import CurlShim
import SondeCore

extension EasyHandle {
    /// The options every sonde transfer shares, probe or resume trial: protocols, user agent, HTTP
    /// version, timeouts, TLS verification, address family, resolve overrides, DoH and proxy.
    func configureTransport(_ options: ProbeOptions) throws(TaskError) {
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_USERAGENT, string: options.userAgent)
        switch options.httpVersion {
        case .automatic: break
        case .http1_1: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        case .http2: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        case .http2PriorKnowledge: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
        case .http3: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_3))
        }
        if let timeout = options.timeoutMs { try set(CURLOPT_TIMEOUT_MS, timeout) }
        if let timeout = options.connectTimeoutMs { try set(CURLOPT_CONNECTTIMEOUT_MS, timeout) }
        if options.insecure {
            try set(CURLOPT_SSL_VERIFYPEER, 0)
            try set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let path = options.caCertPath { try set(CURLOPT_CAINFO, string: path) }
        if let pin = options.pinnedPublicKey { try set(CURLOPT_PINNEDPUBLICKEY, string: pin) }
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
    }
}
