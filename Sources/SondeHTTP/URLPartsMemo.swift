/// `URLParts` for the per-hop path: each distinct URL is parsed by libcurl's `curl_url` once per
/// run, not once per hop (a `--count 20000` run repeats the same few URLs; a parse and its three
/// `curl_url_get` strings cost about a microsecond).
///
/// Invariant: `parts(of:)` returns exactly what `URLParts(url)` returns. At most `capacity` URLs are
/// remembered; the ones after that are parsed every time, so memory stays bounded whatever the run.
/// Threading: confined to its owner's thread (the engine's, in `ProbeRunner`).
struct URLPartsMemo {
    /// How many distinct URLs are remembered.
    static let capacity = 256
    private var known: [String: URLParts?] = [:]

    /// The parts of `url` (nil when libcurl cannot parse it), from the memo when it was seen before.
    mutating func parts(of url: String) -> URLParts? {
        if let remembered = known[url] { return remembered }
        let parts = URLParts(url)
        if known.count < Self.capacity { known[url] = .some(parts) }
        return parts
    }
}
