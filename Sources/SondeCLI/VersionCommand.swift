import ArgumentParser
import Foundation
import SondeCore
import SondeHTTP
import SondeRun
import SondeSuite

/// `sonde version` (also `sonde --version --verbose`): sonde's version and the libcurl it runs on,
/// with that libcurl's file, TLS, HTTP/2 and QUIC libraries, features and what it lacks. The same
/// facts as a report's `tool` block (`--json` prints that block).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Show sonde's version and the libcurl it runs on (TLS, HTTP/2 and QUIC libraries, features).",
        discussion: """
        sonde runs on the libcurl.so.4 the dynamic linker finds first: LD_LIBRARY_PATH, then the folders of the \
        executable's RUNPATH, where the libcurl bundled with sonde lives (lib/sonde beside bin/ in the tarball, \
        /usr/lib/sonde in the .deb), then the system's. `bundled:` says whether that is the bundled one, and why not. \
        `--libcurl PATH` (before or after the subcommand) or SONDE_LIBCURL=PATH picks another one.
        """)

    @Flag(name: .long, help: "Print the report's tool block as JSON.")
    var json = false

    func run() throws {
        let tool = CurlLibrary.toolInfo
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(tool)
            printLine(String(decoding: data, as: UTF8.self))
            return
        }
        printLine(Self.text(tool, loadedPath: CurlLibrary.loadedPath, tlsVersion: CurlLibrary.tlsLibraryVersion,
                        provenance: LibcurlProvenance.current))
    }

    /// The human-readable lines.
    static func text(_ tool: ToolInfo, loadedPath: String?, tlsVersion: String?, provenance: LibcurlProvenance) -> String {
        var lines = ["sonde \(tool.version)"]
        var curl = "libcurl \(tool.libcurl ?? "unknown")"
        if let path = tool.libcurlPath {
            curl += " at \(path)"
            if let loadedPath, loadedPath != path { curl += " (loaded as \(loadedPath))" }
        }
        lines.append(curl)
        var tls = "  TLS:      \(tool.tlsLibrary ?? "none")"
        if let path = tool.tlsLibraryPath { tls += " at \(path)" }
        if let tlsVersion { tls += " (\(tlsVersion))" }
        lines.append(tls)
        lines.append("  HTTP/2:   \(tool.http2Library ?? "none")")
        lines.append("  QUIC:     \(tool.quicLibrary ?? "none (no HTTP/3)")")
        lines.append("  CA file:  \(tool.caBundle ?? "libcurl's default")")
        lines.append("  features: \(tool.features.joined(separator: " "))")
        for missing in tool.libcurlLacks ?? [] { lines.append("  lacks:    \(missing)") }
        lines.append("  bundled:  " + Self.bundledLine(provenance))
        return lines.joined(separator: "\n")
    }

    /// Whether sonde runs on the libcurl it ships with, and why not.
    static func bundledLine(_ provenance: LibcurlProvenance) -> String {
        if provenance.runsOnBundled { return "yes (\(provenance.bundledFolder ?? ""))" }
        if let reason = provenance.reason {
            return "no: \(reason)" + (provenance.bundledLibrary.map { " (bundled: \($0))" } ?? "")
        }
        return "none (this build carries no libcurl of its own: runs on the system's)"
    }
}
