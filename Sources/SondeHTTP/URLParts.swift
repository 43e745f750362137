import CurlShim

/// A URL as libcurl's own parser (curl_url) understands it, so that sonde and libcurl agree.
struct URLParts: Equatable {
    var scheme: String
    var host: String
    var port: Int

    /// The origin (`scheme://host:port`) used to decide whether a redirect leaves the site.
    var origin: String { "\(scheme)://\(host):\(port)" }

    /// nil when libcurl cannot parse the URL.
    /// - Parameter allowingSpaces: parse as `CURLOPT_URL` does (`CURLU_ALLOW_SPACE`: spaces
    ///   are taken and sent encoded), not as a strict RFC 3986 parser.
    init?(_ url: String, allowingSpaces: Bool = false) {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, allowingSpaces ? UInt32(CURLU_ALLOW_SPACE) : 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>? = nil
            guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST),
              let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) }) else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }
}
