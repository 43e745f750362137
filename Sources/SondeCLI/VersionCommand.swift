import ArgumentParser
import Foundation
import SondeCore
import SondeHTTP
import SondeRun

/// `sonde version` (also `sonde --version --verbose`): sonde's version and the libcurl it runs on,
/// with that libcurl's file, TLS, HTTP/2 and QUIC libraries, features and what it lacks. The same
/// facts as a report's `tool` block (`--json` prints that block).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Show sonde's version and the libcurl it runs on (TLS, HTTP/2 and QUIC libraries, features).",
        discussion: """
        sonde runs on the libcurl.so.4 it finds first: LD_LIBRARY_PATH, then the folder scripts/provide-libcurl.sh \
        fills beside the build (or PREFIX/lib/sonde after make install), then the system's. \
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
        printLine(Self.text(tool, loadedPath: CurlLibrary.loadedPath, tlsVersion: CurlLibrary.tlsLibraryVersion))
    }

    /// The human-readable lines.
    static func text(_ tool: ToolInfo, loadedPath: String?, tlsVersion: String?) -> String {
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
        return lines.joined(separator: "\n")
    }
}
