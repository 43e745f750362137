import Foundation
import Testing

/// The libcurl sonde runs on: `sonde version`, `--libcurl PATH` / `SONDE_LIBCURL`, and the TLS
/// reader calling the OpenSSL of whichever libcurl runs (nginx with TLS 1.2 and 1.3).
@Suite(.serialized) struct LibcurlCLITests {
    /// `sonde version --json` with `arguments` placed before `version` and `environment` set.
    static func tool(_ arguments: [String] = [], environment: [String] = []) throws -> [String: Any] {
        let result = try Harness.run("/usr/bin/env", environment + [Harness.sonde] + arguments + ["version", "--json"], timeout: 30)
        #expect(result.status == 0, "sonde version failed: \(result.stderr)")
        #expect(result.stderr.isEmpty, "sonde version wrote to stderr: \(result.stderr)")
        return try Harness.json(result.stdout)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    @Test func versionNamesTheRunningLibcurlAndItsLibraries() throws {
        let tool = try Self.tool()
        let version = try #require(tool["libcurl"] as? String)
        let path = try #require(tool["libcurlPath"] as? String)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(Self.realPath(path) == path, "libcurlPath is the resolved file")
        let tlsPath = try #require(tool["tlsLibraryPath"] as? String)
        #expect(tlsPath.contains("libssl"))
        let features = try #require(tool["features"] as? [String])
        let lacks = try #require(tool["libcurlLacks"] as? [String])
        if features.contains("http3") {
            #expect(tool["quicLibrary"] is String)
            #expect(!version.hasPrefix("7."))
        } else {
            #expect(lacks.contains { $0.hasPrefix("http3:") })
        }
        #expect((tool["http2Library"] as? String)?.hasPrefix("nghttp2/") == true)

        let text = try Harness.sonde(["version"], timeout: 30)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("sonde "))
        #expect(text.stdout.contains("libcurl \(version) at \(path)"))
        let verbose = try Harness.sonde(["--version", "--verbose"], timeout: 30)
        #expect(verbose.stdout == text.stdout)
        let plain = try Harness.sonde(["--version"], timeout: 30)
        #expect(!plain.stdout.contains("libcurl"), "--version alone stays the bare version")
    }

    @Test func theSystemLibcurlIsSelectableAndSaysWhatItLacks() throws {
        for (arguments, environment) in [(["--libcurl", LibcurlFacts.system], [String]()), ([], ["SONDE_LIBCURL=\(LibcurlFacts.system)"])] {
            let tool = try Self.tool(arguments, environment: environment)
            #expect((tool["libcurl"] as? String)?.hasPrefix("7.88") == true)
            #expect(tool["libcurlPath"] as? String == Self.realPath(LibcurlFacts.system))
            #expect((tool["tlsLibraryPath"] as? String)?.hasSuffix("/libssl.so.3") == true)
            #expect(tool["quicLibrary"] == nil)
            let lacks = try #require(tool["libcurlLacks"] as? [String])
            #expect(lacks.map { $0.split(separator: ":")[0] } == ["http3", "connId", "queueTime"])
        }
        // No HTTP/3 on 7.88: both flags are refused up front, with what to do.
        let refused = try Harness.sonde(["--libcurl", LibcurlFacts.system, "probe", "--http3-only", "--output-dir",
                                         Harness.temporaryDirectory(), "https://127.0.0.1:9/"], timeout: 30)
        #expect(refused.status != 0)
        #expect((refused.stdout + refused.stderr).contains("--http3-only needs a libcurl built with HTTP/3"))
    }

    @Test(.enabled(if: LibcurlFacts.wheelProvided, "needs .build/sonde-libcurl/lib (scripts/provide-libcurl.sh)"))
    func theProvidedLibcurlIsSelectableEvenUnderLDLibraryPath() throws {
        // LD_LIBRARY_PATH naming the system's folder would win over RUNPATH: --libcurl still wins.
        let tool = try Self.tool(["--libcurl", LibcurlFacts.wheel], environment: ["LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"])
        #expect(tool["libcurlPath"] as? String == Self.realPath(LibcurlFacts.wheel))
        #expect(tool["quicLibrary"] is String)
        let tlsPath = try #require(tool["tlsLibraryPath"] as? String)
        // The wheel's own OpenSSL, beside its libcurl (through the private folder's symlink).
        #expect((tlsPath as NSString).lastPathComponent.hasPrefix("libssl-"))
        #expect(tool["libcurlLacks"] as? [String] == [])
    }

    /// A run off its bundled libcurl says so, and why, in one line on stderr (also under --json) and in
    /// run.warnings; `sonde version` says it on its `bundled:` line (LibcurlProvenance). Here
    /// LD_LIBRARY_PATH puts Debian's 7.88 first, as `make test-system-libcurl` does.
    @Test(.enabled(if: LibcurlFacts.wheelProvided, "needs .build/sonde-libcurl/lib (scripts/provide-libcurl.sh)"))
    func aRunOffItsBundledLibcurlSaysWhyOnStderrAndInTheReport() throws {
        let target = try TargetProcess.get()
        let folder = Harness.temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: folder + "/libcurl.so.4", withDestinationPath: LibcurlFacts.system)
        let output = Harness.temporaryDirectory()
        for json in [false, true] {
            let result = try Harness.run("/usr/bin/env", ["LD_LIBRARY_PATH=\(folder)", Harness.sonde, "probe", target.http + "/bytes/10",
                                                          "--output-dir", output] + (json ? ["--json"] : []), timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: runs on libcurl 7.88") }
            #expect(lines.count == 1, "one line on stderr (json: \(json)): \(result.stderr)")
            #expect(lines.first?.contains("LD_LIBRARY_PATH (\(folder)) comes before the bundled one") == true)
            #expect(lines.first?.contains("it lacks HTTP/3, connection ids, the queue timer") == true)
            if json {
                let run = try #require(try Harness.json(result.stdout)["run"] as? [String: Any])
                let warnings = try #require(run["warnings"] as? [String])
                #expect(warnings.contains { $0.hasPrefix("runs on libcurl 7.88") && $0.contains("LD_LIBRARY_PATH") })
            }
        }
        let version = try Harness.run("/usr/bin/env", ["LD_LIBRARY_PATH=\(folder)", Harness.sonde, "version"], timeout: 30)
        #expect(version.stdout.contains("  bundled:  no: LD_LIBRARY_PATH (\(folder)) comes before the bundled one"), "\(version.stdout)")
        // On its bundled libcurl (this build's RUNPATH finds it): yes, and nothing said by a run.
        let plain = try Harness.run("/usr/bin/env", ["-u", "LD_LIBRARY_PATH", Harness.sonde, "version"], timeout: 30)
        #expect(plain.stdout.contains("  bundled:  yes ("), "\(plain.stdout)")
        let quiet = try Harness.run("/usr/bin/env", ["-u", "LD_LIBRARY_PATH", Harness.sonde, "probe", target.http + "/bytes/10",
                                                     "--output-dir", output], timeout: 60)
        #expect(quiet.status == 0 && !quiet.stderr.contains("warning: runs on libcurl"), "\(quiet.stderr)")
    }

    /// The executable copied without the folder beside it: it runs on the system's libcurl and says why.
    @Test(.enabled(if: LibcurlFacts.wheelProvided, "needs .build/sonde-libcurl/lib (scripts/provide-libcurl.sh)"))
    func aBinaryCopiedAloneSaysItsBundledLibcurlIsMissing() throws {
        let folder = Harness.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Harness.sonde, toPath: folder + "/sonde")
        let version = try Harness.run("/usr/bin/env", ["-u", "LD_LIBRARY_PATH", folder + "/sonde", "version"], timeout: 30)
        #expect(version.status == 0)
        #expect(version.stdout.contains("  bundled:  no: no bundled libcurl"), "\(version.stdout)")
        #expect(version.stdout.contains("copied without the lib/sonde folder"))
    }

    @Test func aFileThatIsNotALibcurlIsRefused() throws {
        let cases = [("/etc/hostname", "is not a libcurl"), ("/usr/lib/x86_64-linux-gnu/libz.so.1", "is not a libcurl"),
                     ("/nonexistent/libcurl.so.4", "no such file")]
        for (path, message) in cases {
            let result = try Harness.sonde(["version", "--libcurl", path], timeout: 30)
            #expect(result.status == 64, "\(path): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(path): \(result.stderr)")
        }
        let environment = try Harness.run("/usr/bin/env", ["SONDE_LIBCURL=/etc/hostname", Harness.sonde, "version"], timeout: 30)
        #expect(environment.status == 64)
        #expect(environment.stderr.contains("SONDE_LIBCURL /etc/hostname is not a libcurl"))
    }

    /// TLS 1.3 and TLS 1.2 from nginx, read through each libcurl's own OpenSSL.
    @Test func theTLSReaderUsesTheOpenSSLOfTheRunningLibcurl() throws {
        let modern = try Nginx()
        defer { modern.stop() }
        let legacy = try Nginx(protocols: "TLSv1.2")
        defer { legacy.stop() }
        var libcurls = [LibcurlFacts.system]
        if LibcurlFacts.wheelProvided { libcurls.append(LibcurlFacts.wheel) }
        for libcurl in libcurls {
            for (nginx, version) in [(modern, "TLSv1.3"), (legacy, "TLSv1.2")] {
                let result = try Harness.sonde(["--libcurl", libcurl, "probe", "--json", "--cacert", nginx.certificate, "--output-dir",
                                                Harness.temporaryDirectory(), "https://127.0.0.1:\(nginx.https)/1k.bin"], timeout: 60)
                #expect(result.status == 0, "\(libcurl) \(version): \(result.stderr)")
                let report = try Harness.json(result.stdout)
                let tool = try #require(report["tool"] as? [String: Any])
                #expect(tool["libcurlPath"] as? String == Self.realPath(libcurl))
                let transaction = try #require(((report["probes"] as? [[String: Any]])?.first?["transactionMetrics"] as? [[String: Any]])?.first)
                #expect(transaction["negotiatedTLSProtocolVersion"] as? String == version, "\(libcurl)")
                let cipher = try #require(transaction["negotiatedTLSCipherSuite"] as? String, "\(libcurl) \(version)")
                #expect(version == "TLSv1.3" ? cipher.hasPrefix("TLS_AES_") || cipher.hasPrefix("TLS_CHACHA20_") : cipher.hasPrefix("ECDHE-"),
                        "\(libcurl) \(version): \(cipher)")
            }
        }
    }

    /// hypercorn (Python's ssl over the system's OpenSSL) over TCP on both libcurls, and over QUIC
    /// (aioquic's own TLS 1.3) on the one with HTTP/3: the version and cipher each negotiated.
    @Test(.enabled(if: H3Server.available, "needs hypercorn and aioquic"))
    func theTLSReaderReadsWhatHypercornNegotiated() throws {
        let server = try H3Server()
        defer { server.stop() }
        var runs = [(LibcurlFacts.system, ["--no-alt-svc", "https://127.0.0.1:\(server.tcpPort)/"])]
        if LibcurlFacts.wheelProvided {
            runs.append((LibcurlFacts.wheel, ["--no-alt-svc", "https://127.0.0.1:\(server.tcpPort)/"]))
            runs.append((LibcurlFacts.wheel, ["--http3-only", "https://127.0.0.1:\(server.quicPort)/"]))
        }
        for (libcurl, arguments) in runs {
            let result = try Harness.sonde(["--libcurl", libcurl, "probe", "--json", "--cacert", server.caFile, "--output-dir",
                                            Harness.temporaryDirectory()] + arguments, timeout: 60)
            #expect(result.status == 0, "\(libcurl) \(arguments): \(result.stderr)")
            let transaction = try #require(((try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first?["transactionMetrics"]
                as? [[String: Any]])?.first)
            #expect(transaction["negotiatedTLSProtocolVersion"] as? String == "TLSv1.3", "\(libcurl) \(arguments)")
            // aioquic offers TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256.
            let cipher = transaction["negotiatedTLSCipherSuite"] as? String ?? ""
            #expect(cipher.hasPrefix("TLS_AES_") || cipher.hasPrefix("TLS_CHACHA20_"), "\(libcurl) \(arguments): \(cipher)")
            #expect(transaction["networkProtocolName"] as? String == (arguments[0] == "--http3-only" ? "h3" : "h2"))
        }
    }
}

/// Which libcurls this machine has for the tests.
enum LibcurlFacts {
    /// Debian's libcurl 7.88 (libcurl4-openssl-dev's runtime).
    static let system = "/usr/lib/x86_64-linux-gnu/libcurl.so.4"
    /// The libcurl scripts/provide-libcurl.sh put beside the build (libcurl.so.4 there is its version wrapper).
    static let wheel = Harness.root + "/.build/sonde-libcurl/lib/libcurl-sonde-real.so.4"
    static let wheelProvided = FileManager.default.fileExists(atPath: wheel)

    /// The `tool` block of `sonde version --json` as this test process's environment runs it (the
    /// libcurl in use: LD_LIBRARY_PATH, SONDE_LIBCURL, RUNPATH or the system's).
    static let runningTool: RunningTool = {
        guard let result = try? Harness.run("/usr/bin/env", [Harness.sonde, "version", "--json"], timeout: 30),
              let tool = try? JSONDecoder().decode(RunningTool.self, from: Data(result.stdout.utf8)) else { return RunningTool() }
        return tool
    }()

    /// What the tests read of `sonde version --json`.
    struct RunningTool: Decodable, Sendable {
        var features: [String]? = nil
        var libcurl: String? = nil
        var libcurlLacks: [String]? = nil
    }

    /// True when the sonde under test runs on a libcurl with HTTP/3.
    static var runningHasHTTP3: Bool { runningTool.features?.contains("http3") == true }

    /// The running libcurl's version, e.g. "8.23.0" or "7.88.1".
    static var runningVersion: String { runningTool.libcurl ?? "unknown" }
    /// Its major version (0 when unknown).
    static var runningMajor: Int { Int(runningVersion.prefix { $0 != "." }) ?? 0 }
    /// True when the running libcurl lacks `feature`, as `sonde version` lists it ("connId", "queueTime", …).
    static func runningLacks(_ feature: String) -> Bool {
        (runningTool.libcurlLacks ?? []).contains { $0.hasPrefix(feature + ":") }
    }
}
