import CurlShim
import Foundation
import SondeCore

/// Which libcurl this process runs on, against the one bundled with sonde, and why they differ.
///
/// sonde ships with a libcurl 8 (HTTP/3, the queue timer, connection ids) in a folder its
/// executable names in DT_RUNPATH: `$ORIGIN/../lib/sonde` in the tarball and `make install`,
/// `/usr/lib/sonde` in the .deb, the build's `sonde-libcurl/lib` in a source tree. The dynamic
/// linker can still load another one: LD_LIBRARY_PATH comes first; in secure-execution mode (file
/// capabilities such as `setcap cap_net_raw+ep`, or set-user-ID) it ignores LD_LIBRARY_PATH and
/// every RUNPATH entry holding `$ORIGIN`; a binary copied without its folder finds none. This type
/// finds the bundled copy (the first RUNPATH folder holding `libcurl-sonde-real.so.4`), compares it
/// with the loaded file and says why they differ, in one line for stderr and `run.warnings`.
///
/// Threading: a value; `current` is read once per process.
public struct LibcurlProvenance: Sendable, Equatable {
    /// The marker scripts/provide-libcurl.sh puts beside the bundled libcurl (a symlink to it).
    public static let bundledMarker = "libcurl-sonde-real.so.4"

    /// The executable's RUNPATH as written (`$ORIGIN` unexpanded), nil when it has none.
    public var runpath: String?
    /// The RUNPATH entry (as written) whose folder holds the bundled libcurl, nil when none does.
    public var bundledEntry: String?
    /// That entry's folder, `$ORIGIN` expanded.
    public var bundledFolder: String?
    /// The bundled libcurl's real path, nil when there is none.
    public var bundledLibrary: String?
    /// The real path of the libcurl the process runs on.
    public var loadedLibrary: String?
    /// The loaded libcurl's version, e.g. "7.88.1".
    public var loadedVersion: String
    /// True when the libcurl was chosen on purpose (`--libcurl PATH` or `SONDE_LIBCURL`).
    public var chosen: Bool
    /// Secure-execution mode (AT_SECURE).
    public var secureExecution: Bool
    /// LD_LIBRARY_PATH as the process got it ("" when unset).
    public var libraryPath: String
    /// What the loaded libcurl lacks of what sonde uses (`CurlLibrary.lacks`).
    public var lacks: [String]

    /// True when the process runs on its bundled libcurl.
    public var runsOnBundled: Bool { bundledLibrary != nil && bundledLibrary == loadedLibrary }

    /// Why the loaded libcurl is not the bundled one, nil when it is (or when no libcurl is bundled
    /// and nothing was expected).
    public var reason: String? {
        if runsOnBundled { return nil }
        if chosen { return "chosen with --libcurl or SONDE_LIBCURL" }
        let entries = (runpath ?? "").split(separator: ":").map(String.init)
        let originEntries = entries.filter { $0.contains("$ORIGIN") || $0.contains("${ORIGIN}") }
        if bundledFolder == nil {
            if secureExecution && !originEntries.isEmpty {
                return "the executable has file capabilities (or is set-user-ID), and the dynamic linker then ignores "
                    + "$ORIGIN in its RUNPATH (\(originEntries.joined(separator: ":"))): install the .deb, whose RUNPATH is absolute, "
                    + "or run it without capabilities"
            }
            guard expectsBundle(entries) else { return nil }
            return "no bundled libcurl: none of the executable's RUNPATH folders (\(entries.joined(separator: ":"))) holds "
                + "\(Self.bundledMarker), so the executable was copied without the lib/sonde folder beside it"
        }
        if !libraryPath.isEmpty, let loadedLibrary,
           libraryPath.split(separator: ":").contains(where: { !$0.isEmpty && Self.holdsLibcurl(String($0), loaded: loadedLibrary) }) {
            return "LD_LIBRARY_PATH (\(libraryPath)) comes before the bundled one"
        }
        if secureExecution, let bundledEntry, bundledEntry.contains("ORIGIN") {
            return "the executable has file capabilities (or is set-user-ID), and the dynamic linker then ignores $ORIGIN "
                + "in its RUNPATH: install the .deb, whose RUNPATH is absolute, or run it without capabilities"
        }
        return "the dynamic linker found another libcurl.so.4 first"
    }

    /// The one line a run prints on stderr and keeps in `run.warnings`, nil when all is as shipped:
    /// the bundled libcurl is loaded, or none is bundled and the loaded one lacks nothing.
    public var warning: String? {
        let lacking = lacks.map { Self.lackNames[String($0.prefix { $0 != ":" })] ?? String($0.prefix { $0 != ":" }) }
        if runsOnBundled && lacking.isEmpty { return nil }
        guard let reason else {
            return lacking.isEmpty ? nil : "libcurl \(loadedVersion) lacks \(lacking.joined(separator: ", "))"
        }
        var line = "runs on libcurl \(loadedVersion)"
        if let loadedLibrary { line += " (\(loadedLibrary))" }
        if let bundledLibrary { line += ", not the bundled one (\(bundledLibrary))" }
        line += ": \(reason)"
        if !lacking.isEmpty { line += "; it lacks \(lacking.joined(separator: ", "))" }
        return line
    }

    /// How a run's warning names what `CurlLibrary.lacks` lists (keyed by its first word).
    static let lackNames = ["http3": "HTTP/3", "connId": "connection ids", "queueTime": "the queue timer"]

    /// What to do to get HTTP/3, for a message about a libcurl without it: in a source tree,
    /// the script that provides one; elsewhere, why the bundled one was not loaded.
    public var http3Advice: String {
        let entries = (runpath ?? "").split(separator: ":").map(String.init)
        if bundledLibrary == nil && entries.contains(where: { $0.contains("sonde-libcurl") }) {
            return "Run scripts/provide-libcurl.sh (or give --libcurl PATH to a libcurl with HTTP/3)"
        }
        if let reason, !chosen { return "sonde's bundled libcurl has HTTP/3 but was not loaded: \(reason)" }
        return "Give --libcurl PATH to a libcurl with HTTP/3"
    }

    /// This process's provenance, read once.
    public static let current: LibcurlProvenance = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let runpath = sonde_executable_runpath(&buffer, buffer.count) == 1
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        let environment = ProcessInfo.processInfo.environment
        var provenance = LibcurlProvenance(
            runpath: runpath, bundledEntry: nil, bundledFolder: nil, bundledLibrary: nil, loadedLibrary: CurlLibrary.path,
            loadedVersion: CurlLibrary.version, chosen: !(environment["SONDE_LIBCURL"] ?? "").isEmpty,
            secureExecution: sonde_secure_execution() == 1, libraryPath: environment["LD_LIBRARY_PATH"] ?? "",
            lacks: CurlLibrary.lacks)
        for entry in (runpath ?? "").split(separator: ":").map(String.init) {
            let folder = expand(entry)
            if let real = realPath(folder + "/" + bundledMarker) {
                provenance.bundledEntry = entry
                provenance.bundledFolder = folder
                provenance.bundledLibrary = real
                break
            }
        }
        return provenance
    }()

    /// A RUNPATH entry with `$ORIGIN` replaced by the executable's folder.
    static func expand(_ entry: String) -> String {
        guard entry.contains("ORIGIN"), let executable = realPath("/proc/self/exe") else { return entry }
        let origin = (executable as NSString).deletingLastPathComponent
        return entry.replacingOccurrences(of: "${ORIGIN}", with: origin).replacingOccurrences(of: "$ORIGIN", with: origin)
    }

    /// Whether a RUNPATH names a folder sonde's bundle lives in (`lib/sonde` or `sonde-libcurl`).
    private func expectsBundle(_ entries: [String]) -> Bool {
        entries.contains { $0.hasSuffix("/lib/sonde") || $0.contains("sonde-libcurl") }
    }

    private static func holdsLibcurl(_ folder: String, loaded: String) -> Bool {
        realPath(folder + "/libcurl.so.4") == loaded
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
