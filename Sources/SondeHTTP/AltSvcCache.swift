#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// The Alt-Svc cache of one check's run (RFC 7838), kept by libcurl and shared by every easy
/// handle of the check: what one group of URLs learned, the next group's new connections use.
///
/// libcurl keeps an Alt-Svc cache per easy handle, loads it from a file when CURLOPT_ALTSVC is
/// set and writes it back only in `curl_easy_cleanup`. So each handle gets a file of its own in a
/// private folder (mode 0700), written from what the check knows so far (`handleFile`); once the
/// handle is gone its file is read back and merged (`collect`), and `finish` writes the merged
/// cache to the `--alt-svc` file (without following links) and removes the folder. A line of
/// libcurl's cache is `ALPN host port ALPN host port "YYYYMMDD HH:MM:SS" persist priority`; two
/// lines for the same pair of services keep the later expiry.
///
/// Beside libcurl's cache it remembers which response advertised h3 for each origin
/// (`record`), so that a transaction on the alternative can say why it is HTTP/3.
///
/// Threading: used only from the engine's thread, like `ConnectionRegistry`.
public final class AltSvcCache {
    /// What an origin's response advertised, and where sonde saw it.
    struct Advertisement {
        var header: String
        var alternatives: [AltSvcHeader.Alternative]
        var connectionID: Int?
        var protocolName: String?
        var at: Timestamp?
    }

    /// The `--alt-svc` file read at the start and written by `finish`; nil: this run only.
    public let persistentFile: String?
    private let folder: String
    private var lines: [String: String] = [:]  // the six service tokens -> the whole line
    private var advertisements: [String: Advertisement] = [:]  // by origin
    private var handleFiles = 0

    /// The largest cache file read (bytes) and the most lines kept; libcurl's own lines are short.
    static let maxFileBytes = 1 << 20
    static let maxLines = 10_000

    /// - Parameter persistentFile: `--alt-svc FILE`: read now when it exists (a regular file,
    ///   not through a link), written by `finish`.
    public init(persistentFile: String?) throws(TaskError) {
        self.persistentFile = persistentFile
        var template = Array((tmpDirectory() + "/sonde-alt-svc-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TaskError(code: .localIOError, message: "cannot create a folder for the Alt-Svc cache: \(systemErrorMessage())")
        }
        folder = String(cString: made)
        if let persistentFile {
            var status = stat()
            if lstat(persistentFile, &status) == 0 {
                let bytes = try NoFollowFile.read(path: persistentFile, maxBytes: Self.maxFileBytes)
                merge(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    deinit { removeFolder() }

    /// A new file holding the cache as the check knows it now, for one easy handle's CURLOPT_ALTSVC.
    func handleFile() throws(TaskError) -> String {
        handleFiles += 1
        let path = "\(folder)/handle-\(handleFiles).txt"
        let descriptor = try NoFollowFile.create(path, mode: 0o600)
        defer { close(descriptor) }
        try writeAll(descriptor: descriptor, bytes: Array(contents.utf8), path: path)
        return path
    }

    /// Merges what libcurl wrote to `paths` (their handles cleaned up) and removes them.
    func collect(_ paths: [String]) {
        for path in paths {
            if let bytes = try? NoFollowFile.read(path: path, maxBytes: Self.maxFileBytes) {
                merge(String(decoding: bytes, as: UTF8.self))
            }
            unlink(path)
        }
    }

    /// Notes an origin's `Alt-Svc` header (`clear` forgets it); only h3 alternatives are kept.
    func record(origin: String, header: String, connectionID: Int?, protocolName: String?, at: Timestamp?) {
        let parsed = AltSvcHeader(header)
        let h3 = parsed.alternatives.filter(\.isHTTP3)
        if parsed.clear || h3.isEmpty {
            if parsed.clear { advertisements[origin] = nil }
            return
        }
        // The first response that advertised these alternatives is the one that taught them.
        if let known = advertisements[origin], known.alternatives == h3 { return }
        advertisements[origin] = Advertisement(header: header, alternatives: h3, connectionID: connectionID,
                                               protocolName: protocolName, at: at)
    }

    /// Why a QUIC connection to `remoteHost:remotePort` for `origin` (host `originHost`) is h3:
    /// the response that advertised it, else the `--alt-svc` file.
    func use(origin: String, originHost: String, remoteHost: String?, remotePort: Int) -> AltSvcUse {
        if let advertisement = advertisements[origin] {
            let alternative = advertisement.alternatives.first { $0.port == remotePort } ?? advertisement.alternatives[0]
            return AltSvcUse(source: .response, alternative: alternative.authority(originHost: originHost),
                             header: advertisement.header, advertisedOnConnection: advertisement.connectionID,
                             advertisedOver: advertisement.protocolName, advertisedAt: advertisement.at)
        }
        let host = remoteHost ?? originHost
        return AltSvcUse(source: .cacheFile, alternative: (host.contains(":") ? "[\(host)]" : host) + ":\(remotePort)")
    }

    /// Writes the merged cache to the `--alt-svc` file (when given) and removes the private folder.
    public func finish() throws(TaskError) {
        defer { removeFolder() }
        guard let persistentFile else { return }
        try NoFollowFile.writeReplacing(persistentFile, Array(contents.utf8), mode: 0o644)
    }

    /// libcurl's file format: its two comment lines, then one line per pair of services.
    private var contents: String {
        "# Your alt-svc cache. https://curl.se/docs/alt-svc.html\n# This file was generated by sonde (libcurl's format).\n"
            + lines.keys.sorted().compactMap { lines[$0] }.map { $0 + "\n" }.joined()
    }

    /// Adds the lines of a cache file: comments and lines that are not libcurl's nine fields are
    /// skipped; for the same six service tokens the later expiry wins.
    private func merge(_ text: String) {
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard raw.first != "#", raw.count <= 1024 else { continue }
            let tokens = raw.split(separator: " ")
            // ALPN host port ALPN host port "date time" persist prio: ten tokens (the date holds a space).
            guard tokens.count == 10, Int(tokens[2]) != nil, Int(tokens[5]) != nil else { continue }
            let key = tokens[0..<6].joined(separator: " ")
            let expiry = tokens[6] + " " + tokens[7]
            if let known = lines[key] {
                let knownTokens = known.split(separator: " ")
                if knownTokens[6] + " " + knownTokens[7] >= expiry { continue }
            } else if lines.count >= Self.maxLines {
                continue
            }
            lines[key] = String(raw)
        }
    }

    private func removeFolder() {
        for name in directoryEntries(folder) { unlink("\(folder)/\(name)") }
        rmdir(folder)
    }
}

/// The names in a folder (not "." and ".."), read with opendir/readdir.
private func directoryEntries(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// `$TMPDIR`, or /tmp.
private func tmpDirectory() -> String {
    if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
    return "/tmp"
}
