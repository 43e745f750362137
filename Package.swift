// swift-tools-version:6.1
import PackageDescription

/// Where the libcurl that sonde runs on comes from: sonde links against the system's libcurl.so and
/// finds libcurl.so.4 at run time by DT_RUNPATH (--enable-new-dtags, so LD_LIBRARY_PATH still wins):
/// in an install prefix (`PREFIX/bin/../lib/sonde`), then beside a build
/// (`.build/<triple>/<config>/../../sonde-libcurl/lib`, filled by scripts/provide-libcurl.sh), then
/// the system's libcurl.so.4. `make install` sets SONDE_INSTALL_BUILD=1: an installed binary
/// carries only the prefix's folder, never a path relative to where a build folder would be.
let installBuild = Context.environment["SONDE_INSTALL_BUILD"] == "1"
let libcurlLinkerFlags = ["-Xlinker", "--enable-new-dtags", "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/sonde"]
    + (installBuild ? [] : ["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../../sonde-libcurl/lib"])

/// A release build's executable exports only `main` (a version script): by default a Swift executable
/// exports every symbol of its own objects (`-export-dynamic`, static-stdlib-args.lnk), 57,717 names that
/// nothing looks up. Measured on the stripped release binary: 97.2 MB -> 91.4 MB (.dynsym and .dynstr).
/// It is linked by lld (the toolchain's; the default is gold) for `--symbol-ordering-file`, which gold lacks: the
/// functions that start-up, a probe and serve run (Sources/sonde/link-order.txt, written by
/// scripts/bench/link-order.sh) placed first in .text, so they share few pages: serve's RSS 48.7 -> 40.8 MiB idle
/// (docs/measurements.md, "2026-11-28: the link"). Packed relative relocations (`-z pack-relative-relocs`) would
/// take 3.5 MiB more but need glibc 2.36 (no Ubuntu 22.04): left out.
let releaseLinkerFlags = ["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/sonde/exports.map",
                          "-use-ld=lld",
                          "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/sonde/link-order.txt",
                          "-Xlinker", "--no-warn-symbol-ordering"]

let package = Package(
    name: "sonde",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sonde", targets: ["sonde"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // The run-history store (SQLite). From 7.10.0 GRDB defines SQLITE_DISABLE_SNAPSHOT on Linux, so it
        // links against Debian's libsqlite3 (built without SQLITE_ENABLE_SNAPSHOT: no sqlite3_snapshot_*
        // symbols, GRDB issue #1537); earlier 7.x fail to link there.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // gzip for OTLP request bodies (OTEL_EXPORTER_OTLP_COMPRESSION), over the system's zlib.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // SIGINT/SIGTERM as a flag every engine polls (async-signal-safe, so in C).
        .target(name: "CSignalFlags"),
        // Typed C wrappers for libcurl's variadic setopt/getinfo and the OpenSSL session reader.
        // No libssl is linked: the TLS reader uses the OpenSSL of whichever libcurl runs (CurlShim.c).
        .target(
            name: "CurlShim",
            dependencies: ["CSignalFlags"],
            linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("dl"), .unsafeFlags(libcurlLinkerFlags)]
        ),
        .target(
            name: "SondeCore",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        // swift-crypto and swift-certificates read the peer certificates' DER (fingerprint, names).
        .target(name: "SondeHTTP", dependencies: ["CurlShim", "CSignalFlags", "SondeCore",
                                                  .product(name: "Crypto", package: "swift-crypto"),
                                                  .product(name: "X509", package: "swift-certificates"),
                                                  .product(name: "SwiftASN1", package: "swift-asn1")]),
        // libpcap (Debian libpcap-dev) as a system library module.
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .target(name: "SondeCapture", dependencies: ["CPcap", "SondeCore"]),
        .target(
            name: "SondeTarget",
            dependencies: [
                "SondeCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The WebSocket client and the soak engine, on SwiftNIO (libcurl 7.88 has no WebSocket).
        .target(
            name: "SondeWebSocket",
            dependencies: [
                "SondeCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Resume trials and verdicts: downloads on libcurl (SondeHTTP), SHA-256 from swift-crypto.
        .target(
            name: "SondeTransfer",
            dependencies: ["SondeCore", "SondeHTTP", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "SondeReport", dependencies: ["SondeCore"]),
        // GraphQL operations on a probe and subscriptions in a soak (docs/graphql.md): the request body, the
        // response's verdict (a ResponseBodyJudge for SondeHTTP's ProbeRunner), graphql-transport-ws (a
        // SoakSubprotocol), and the two kind extensions (SondeSuite's KindExtension: keys, rules, option groups).
        .target(name: "SondeGraphQL", dependencies: ["SondeCore", "SondeHTTP", "SondeWebSocket", "SondeReport", "SondeSuite",
                                                     .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // Server-Sent Events (`sonde stream`, `kind: sse`): the kind (spec, keys, runner), the EventSource parser, the client on libcurl
        // (SondeHTTP's ConcurrentTransfers), the stream figures and their terminal lines.
        .target(name: "SondeSSE", dependencies: ["SondeCore", "SondeHTTP", "SondeReport", "SondeCapture", "SondeOTLP", "SondeRun", "SondeSuite"]),
        // OTLP export of a finished run (metrics and traces over http/protobuf, on sonde's libcurl
        // engine): a hand-written protobuf writer for the few OTLP messages (docs/otlp.md says why).
        .target(name: "SondeOTLP", dependencies: ["SondeCore", "SondeHTTP", "SondeReport",
                                                  .product(name: "CompressNIO", package: "compress-nio"),
                                                  .product(name: "NIOCore", package: "swift-nio")]),
        // The Linux calls of the link emulator's plumbing (TUN ioctls, routes, unshare/setns, mount).
        .target(name: "CLinkShim"),
        // Emulated links (--link): profiles, the packet emulator, the per-run network namespace and TUNs.
        // DNS messages on the wire (codec, UDP/TCP exchange): the dns prober's and the link's DNS64.
        .target(name: "SondeDNS", dependencies: ["SondeCore"]),
        .target(name: "SondeLink", dependencies: ["SondeCore", "SondeDNS", "CLinkShim"]),
        // The run history: an embedded SQLite database (GRDB over the system's libsqlite3, Debian
        // libsqlite3-dev), a row per run, check and threshold; its trends and index page.
        .target(name: "SondeHistory", dependencies: ["SondeCore", "SondeReport", .product(name: "GRDB", package: "GRDB.swift")]),
        // RE2 (Debian libre2-dev) behind a small C interface: the Go-syntax regular expressions of
        // serve's blackbox modules (SondeServe's GoRegexp), matched in time linear in the text.
        .target(name: "CRE2Shim", linkerSettings: [.linkedLibrary("re2")]),
        // Suites and specs: the check kinds' registry and spec side (Kinds/: `CheckKind`, kind
        // extensions), one Codable spec per kind with its keys (Keys/: the SpecKey tables), suite
        // files, their loader and writer: what the CLI, suites and the scheduler produce alike, and
        // what becomes each engine's options. BoundedYAML also imports Yams' CYaml (libyaml's event
        // parser, to bound alias expansion before composing), which Yams builds but does not export
        // as a product, so it cannot be named here.
        .target(
            name: "SondeSuite",
            dependencies: ["SondeCore", "SondeHTTP", "SondeWebSocket", "SondeTransfer", "SondeReport", "SondeLink",
                           .product(name: "Yams", package: "Yams"),
                           // A spec key's option name and help for argument-parser (Keys/SpecKey+Arguments.swift),
                           // shared by SondeCLI's commands and kind extensions' option groups.
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Runs (Runs/): how a kind runs (`RunnableKind`), the lifecycle, the check driver and
        // runners, captures, stop switches, driven by `RunSettings` (the CLI maps its flags to
        // them, serve calls them directly).
        .target(
            name: "SondeRun",
            dependencies: ["SondeCore", "SondeSuite", "SondeHTTP", "SondeWebSocket", "SondeTransfer", "SondeCapture", "SondeReport", "SondeHistory",
                           "SondeLink", "SondeOTLP", "CSignalFlags",
                           .product(name: "NIOPosix", package: "swift-nio")]
        ),
        // The icmp prober's socket calls: recvmsg's control messages (CMSG_* macros), the echo sequence.
        .target(name: "CPingShim"),
        // `sonde serve`: its config (Config/: read by SondeRun's SuiteReader, with the blackbox
        // modules, the allow list and the web config), the scheduler, /metrics, blackbox_exporter's /probe, on Hummingbird (the
        // tcp prober's connections and TLS on SwiftNIO and NIOSSL; icmp on CPingShim; grpc on
        // SondeHTTP's GRPCUnaryCall, libcurl).
        .target(
            name: "SondeServe",
            dependencies: ["SondeCore", "SondeDNS", "SondeHTTP", "SondeReport", "SondeRun", "SondeSuite", "SondeHistory", "SondeOTLP", "CPingShim", "CRE2Shim",
                           .product(name: "Yams", package: "Yams"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "HummingbirdTLS", package: "hummingbird"),
                           .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOTLS", package: "swift-nio"),
                           .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
        // `sonde audit`: what a server offers over TLS (handshakes through libcurl, the leaf read with
        // swift-certificates) judged by Apple's published rules; client handshakes simulated with
        // swift-crypto's key shares and AEADs. The kind (`kind: audit`) lives here, on SondeRun, as SondeSSE's does.
        .target(name: "SondeAudit", dependencies: ["CurlShim", "SondeCore", "SondeHTTP", "SondeCapture", "SondeLink", "SondeReport", "SondeRun", "SondeSuite",
                                                   .product(name: "Crypto", package: "swift-crypto"),
                                                   .product(name: "X509", package: "swift-certificates"),
                                                   .product(name: "SwiftASN1", package: "swift-asn1")]),
        // The commands (swift-argument-parser) as a library, so that tests reach their parsing and runs.
        .target(
            name: "SondeCLI",
            dependencies: [
                "SondeCore", "SondeHTTP", "SondeCapture", "SondeWebSocket", "SondeTransfer", "SondeTarget", "SondeReport", "SondeHistory", "SondeRun", "SondeSuite", "SondeSSE", "SondeGraphQL", "SondeServe", "SondeAudit", "SondeLink", "SondeOTLP", "CurlShim", "CSignalFlags",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .executableTarget(name: "sonde", dependencies: ["SondeCLI"], exclude: ["exports.map", "link-order.txt"],
                          linkerSettings: [.unsafeFlags(releaseLinkerFlags, .when(configuration: .release))]),
        .testTarget(name: "SondeCoreTests", dependencies: ["SondeCore"]),
        .testTarget(name: "SondeHTTPTests", dependencies: ["SondeHTTP", "SondeTarget", "SondeCore"]),
        .testTarget(name: "SondeWebSocketTests", dependencies: ["SondeWebSocket", "SondeTarget", "SondeCore"]),
        .testTarget(name: "SondeTargetTests", dependencies: ["SondeTarget"]),
        .testTarget(name: "SondeTransferTests", dependencies: ["SondeTransfer", "SondeHTTP", "SondeTarget", "SondeCore",
                                                              .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "SondeLinkTests", dependencies: ["SondeLink", "SondeDNS", "SondeCore"]),
        .testTarget(name: "SondeSSETests", dependencies: ["SondeSSE", "SondeRun", "SondeSuite", "SondeCLI", "SondeHTTP", "SondeCore"]),
        .testTarget(name: "SondeReportTests", dependencies: ["SondeReport", "SondeCore"]),
        .testTarget(name: "SondeGraphQLTests", dependencies: ["SondeGraphQL", "SondeHTTP", "SondeWebSocket", "SondeCore"]),
        .testTarget(name: "SondeOTLPTests", dependencies: ["SondeOTLP", "SondeCore"]),
        .testTarget(name: "SondeCaptureTests", dependencies: ["SondeCapture", "SondeCore"], resources: [.copy("Corpus")]),
        .testTarget(name: "SondeServeTests", dependencies: ["SondeServe", "SondeDNS", "SondeCLI", "SondeHTTP", "SondeRun", "SondeSuite", "SondeCore", "SondeReport"]),
        .testTarget(name: "SondeHistoryTests", dependencies: ["SondeHistory", "SondeReport", "SondeCore",
                                                            .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SondeSuiteTests", dependencies: ["SondeSuite", "SondeCLI", "SondeAudit", "SondeCore", .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "SondeRunTests", dependencies: ["SondeRun", "SondeSuite", "SondeCore"]),
        .testTarget(name: "SondeCLIUnitTests", dependencies: ["SondeCLI", "SondeRun", "SondeSuite", "SondeAudit", "SondeCore", "SondeReport",
                                                             .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "SondeAuditTests", dependencies: ["SondeAudit", "SondeCore", "SondeReport", "SondeRun", "SondeSuite", "CurlShim"]),
        .testTarget(name: "SondeCLITests", dependencies: ["SondeCore", "SondeTarget", "SondeHistory"], resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)

/// The test targets' index store, and only theirs: SwiftPM's test discovery on Linux reads the test
/// modules' index units, and the Makefile builds with `--disable-index-store` (indexing every
/// module costs a fresh build about 11 % of its CPU, docs/measurements.md). `make test-build` sets
/// SONDE_TEST_INDEX_STORE to the folder discovery reads (`<bin path>/index/store`); without it, a
/// build with the index store on (SwiftPM's default) needs nothing from here.
if let store = Context.environment["SONDE_TEST_INDEX_STORE"], !store.isEmpty {
    for target in package.targets where target.type == .test {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-index-store-path", store, "-index-ignore-system-modules"])]
    }
}
