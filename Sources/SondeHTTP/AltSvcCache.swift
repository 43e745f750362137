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
/// handle is gone its file is read back (`collect`): what libcurl wrote is the cache from then
/// on, so its `clear`s, flushes and expiries hold. `finish` writes the cache to the `--alt-svc`
/// file (mode 0600, without following links) and removes the folder. A line of libcurl's cache is
/// `ALPN host port ALPN host port "YYYYMMDD HH:MM:SS" persist priority`; where the handles of one
/// group (`--parallel`) disagree, the lines of all are kept, the later expiry for the same pair of
/// services. Expired lines are dropped; at most `maxLines` are kept (the latest expiries), so a
/// cache file never outgrows what sonde reads back (`maxFileBytes`).
///
/// Beside libcurl's cache it remembers which response advertised h3 for each origin
/// (`record`), so that a transaction on the alternative can say why it is HTTP/3, and which
/// alternatives did not answer (`markFailed`): their lines are dropped from then on (from what
/// libcurl writes back too, so never written to the `--alt-svc` file), and their origin's later
/// transfers use no alternative (`usesNoAlternative`). Only alternatives on the origin's own
/// host are kept (`parse`).
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
    /// "host port alternative-host alternative-port" of each alternative that did not answer.
    private var failedAlternatives: Set<String> = []
    /// The origins (`URLParts.origin`) whose alternative did not answer in this run.
    private var originsWithoutAlternative: Set<String> = []
    private var handleFiles = 0

    /// The largest cache file read (bytes) and the most lines kept; libcurl's own lines are short.
    static let maxFileBytes = 1 << 20
    /// With lines of at most `maxLineLength` characters, the file stays under `maxFileBytes`.
    static let maxLines = 1_000
    static let maxLineLength = 1_000

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
                lines = Self.parse([String(decoding: bytes, as: UTF8.self)])
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

    /// Takes what libcurl wrote to `paths` (their handles cleaned up) as the cache, and removes
    /// them. When none could be read, the cache stays as it was.
    func collect(_ paths: [String]) {
        var texts: [String] = []
        for path in paths {
            if let bytes = try? NoFollowFile.read(path: path, maxBytes: Self.maxFileBytes) {
                texts.append(String(decoding: bytes, as: UTF8.self))
            }
            unlink(path)
        }
        if !texts.isEmpty { lines = Self.parse(texts).filter { !failedAlternatives.contains(Self.pair(ofKey: $0.key)) } }
    }

    /// Notes that the alternative `alternativeHost:alternativePort` of the origin at
    /// `originHost:originPort` (`origin`) did not answer: its lines go, and the origin's later
    /// transfers in this run use no alternative (`usesNoAlternative`).
    func markFailed(origin: String, originHost: String, originPort: Int, alternativeHost: String, alternativePort: Int) {
        let pair = "\(originHost.lowercased()) \(originPort) \(alternativeHost.lowercased()) \(alternativePort)"
        failedAlternatives.insert(pair)
        originsWithoutAlternative.insert(origin)
        lines = lines.filter { Self.pair(ofKey: $0.key) != pair }
    }

    /// True when an alternative of `origin` did not answer in this run: its transfers go to the origin.
    func usesNoAlternative(origin: String) -> Bool { originsWithoutAlternative.contains(origin) }

    /// Whether libcurl may take a transfer to `host:port` (`origin`) to an alternative: the cache
    /// has a line for it, or a response of this run advertised h3.
    func mayUseAlternative(origin: String, host: String, port: Int) -> Bool {
        if advertisements[origin] != nil { return true }
        let prefix = " \(host.lowercased()) \(port) "
        return lines.keys.contains { key in
            guard let space = key.firstIndex(of: " ") else { return false }
            return key[space...].lowercased().hasPrefix(prefix)
        }
    }

    /// Where the alternative of `origin` came from: a response of this run, else the cache file.
    func source(origin: String) -> AltSvcUse.Source { advertisements[origin] != nil ? .response : .cacheFile }

    /// The alternative libcurl took for the last transfer, from its verbose text ("Alt-svc
    /// connecting from [h2]127.0.0.1:8443 to [h3]127.0.0.1:4433"); nil when it took none.
    static func alternativeTaken(libcurlText text: String) -> (host: String, port: Int)? {
        guard let line = text.split(separator: "\n").last(where: { $0.contains("Alt-svc connecting from") }),
              let to = line.range(of: " to [") else { return nil }
        let rest = line[to.upperBound...]
        guard let close = rest.firstIndex(of: "]") else { return nil }
        let authority = rest[rest.index(after: close)...].prefix { $0 != " " && $0 != "\r" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// `host:port`, an IPv6 address in brackets.
    static func authority(host: String, port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// "host port alternative-host alternative-port" of a line's key (its six service tokens).
    private static func pair(ofKey key: String) -> String {
        let tokens = key.split(separator: " ")
        guard tokens.count == 6 else { return key }
        return "\(tokens[1].lowercased()) \(tokens[2]) \(tokens[4].lowercased()) \(tokens[5])"
    }

    /// Notes an origin's `Alt-Svc` header (`clear` forgets it); only h3 alternatives are kept.
    func record(origin: String, header: String, connectionID: Int?, protocolName: String?, at: Timestamp?) {
        // Servers repeat the same header on every response: nothing new to read.
        if advertisements[origin]?.header == header { return }
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

    /// Why a QUIC connection to `remoteHost:remotePort` (where libcurl connected) for `origin` is
    /// h3: the response that advertised it, else the `--alt-svc` file.
    func use(origin: String, originHost: String, remoteHost: String?, remotePort: Int) -> AltSvcUse {
        let alternative = Self.authority(host: remoteHost ?? originHost, port: remotePort)
        guard let advertisement = advertisements[origin] else { return AltSvcUse(source: .cacheFile, alternative: alternative) }
        return AltSvcUse(source: .response, alternative: alternative, header: advertisement.header,
                         advertisedOnConnection: advertisement.connectionID, advertisedOver: advertisement.protocolName,
                         advertisedAt: advertisement.at)
    }

    /// Writes the merged cache to the `--alt-svc` file (when given) and removes the private folder.
    public func finish() throws(TaskError) {
        defer { removeFolder() }
        guard let persistentFile else { return }
        try NoFollowFile.writeReplacing(persistentFile, Array(contents.utf8))
    }

    /// libcurl's file format: its two comment lines, then one line per pair of services.
    private var contents: String {
        "# Your alt-svc cache. https://curl.se/docs/alt-svc.html\n# This file was generated by sonde (libcurl's format).\n"
            + lines.keys.sorted().compactMap { lines[$0] }.map { $0 + "\n" }.joined()
    }

    /// The cache lines of libcurl cache files: comments, lines that are not libcurl's nine
    /// fields, lines whose alternative is on another host than their origin, and expired lines
    /// are skipped; for the same six service tokens the later expiry
    /// wins; at most `maxLines`, the latest expiries.
    static func parse(_ texts: [String], now: Timestamp = .now()) -> [String: String] {
        let today = expiryText(now)
        var lines: [String: (expiry: String, line: String)] = [:]
        for text in texts {
            for raw in text.split(whereSeparator: \.isNewline) {
                guard raw.first != "#", raw.count <= maxLineLength else { continue }
                let tokens = raw.split(separator: " ")
                // ALPN host port ALPN host port "date time" persist prio: ten tokens (the date holds a space).
                guard tokens.count == 10, Int(tokens[2]) != nil, Int(tokens[5]) != nil else { continue }
                // Only an alternative on the origin's own host: a line naming another host would
                // send the origin's requests anywhere (a planted file line, or a header alternative
                // on another host that TLS vouched for only in the run that saw it).
                guard tokens[1].lowercased() == tokens[4].lowercased() else { continue }
                let key = tokens[0..<6].joined(separator: " ")
                let expiry = tokens[6] + " " + tokens[7]
                guard expiry > today, lines[key].map({ $0.expiry < String(expiry) }) ?? true else { continue }
                lines[key] = (String(expiry), String(raw))
            }
        }
        let kept = lines.sorted { $0.value.expiry > $1.value.expiry }.prefix(maxLines)
        return Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value.line) })
    }

    /// libcurl's expiry field for `time`: `"YYYYMMDD HH:MM:SS"` with its quotes, in UTC (its lines compare as text).
    static func expiryText(_ time: Timestamp) -> String {
        let iso = time.description  // 2026-11-24T11:29:06.000000Z
        let digits = iso.filter { $0.isNumber }
        guard digits.count >= 14 else { return "\"\"" }
        let d = Array(digits)
        return "\"" + String(d[0..<8]) + " " + String(d[8..<10]) + ":" + String(d[10..<12]) + ":" + String(d[12..<14]) + "\""
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
