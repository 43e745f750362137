import Foundation
import Testing
@testable import SondeHTTP

/// Which libcurl a run is on against the bundled one, and the one line that says why they differ.
struct LibcurlProvenanceTests {
    /// A folder holding `libcurl.so.4` -> `target` (as provide-libcurl.sh's folder and Makefile's system-libcurl do).
    static func folder(linkingTo target: String) throws -> String {
        let folder = NSTemporaryDirectory() + "provenance-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/libcurl.so.4", withDestinationPath: target)
        return folder
    }

    static func provenance(runpath: String? = "$ORIGIN/../lib/sonde", bundled: String? = "/opt/sonde/lib/libcurl-8.so",
                           loaded: String = "/opt/sonde/lib/libcurl-8.so", version: String = "8.23.0", chosen: Bool = false,
                           secure: Bool = false, libraryPath: String = "", lacks: [String] = []) -> LibcurlProvenance {
        LibcurlProvenance(runpath: runpath, bundledEntry: bundled == nil ? nil : runpath,
                          bundledFolder: bundled.map { ($0 as NSString).deletingLastPathComponent },
                          bundledLibrary: bundled, loadedLibrary: loaded, loadedVersion: version, chosen: chosen,
                          secureExecution: secure, libraryPath: libraryPath, lacks: lacks)
    }

    @Test func onTheBundledLibcurlNothingIsSaid() {
        let provenance = Self.provenance()
        #expect(provenance.runsOnBundled)
        #expect(provenance.reason == nil)
        #expect(provenance.warning == nil)
    }

    @Test func fileCapabilitiesThatDropOriginAreNamed() {
        // The tarball's sonde under setcap: the linker skipped $ORIGIN/../lib/sonde and took the system's.
        let provenance = Self.provenance(loaded: "/usr/lib/x86_64-linux-gnu/libcurl.so.4.8.0", version: "7.88.1", secure: true,
                                         lacks: ["http3: no HTTP/3 (QUIC)", "connId: …", "queueTime: …"])
        let warning = try? #require(provenance.warning)
        #expect(warning?.hasPrefix("runs on libcurl 7.88.1 (/usr/lib/x86_64-linux-gnu/libcurl.so.4.8.0), not the bundled one (/opt/sonde/lib/libcurl-8.so)") == true)
        #expect(warning?.contains("file capabilities") == true)
        #expect(warning?.contains("ignores $ORIGIN") == true)
        #expect(warning?.hasSuffix("it lacks HTTP/3, connection ids, the queue timer") == true)
        #expect(provenance.http3Advice.contains("bundled libcurl has HTTP/3 but was not loaded"))
        #expect(!provenance.http3Advice.contains("scripts/"), "an installed sonde names no script of the source tree")
    }

    @Test func anAbsoluteRunpathKeepsTheBundleUnderCapabilities() {
        // The .deb: RUNPATH /usr/lib/sonde is kept in secure-execution mode.
        let provenance = Self.provenance(runpath: "/usr/lib/sonde", bundled: "/usr/lib/sonde/libcurl-8.so",
                                         loaded: "/usr/lib/sonde/libcurl-8.so", secure: true)
        #expect(provenance.warning == nil)
    }

    @Test func ldLibraryPathThatComesFirstIsNamed() throws {
        let system = "/usr/lib/x86_64-linux-gnu/libcurl.so.4"
        guard let real = realpath(system, nil) else { return }  // no system libcurl here: nothing to point at
        defer { free(real) }
        let folder = try Self.folder(linkingTo: system)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let provenance = Self.provenance(loaded: String(cString: real), version: "7.88.1", libraryPath: "/nowhere:" + folder)
        #expect(provenance.reason == "LD_LIBRARY_PATH (/nowhere:\(folder)) comes before the bundled one")
        #expect(provenance.warning?.contains("LD_LIBRARY_PATH") == true)
    }

    @Test func aBinaryCopiedAloneSaysItsFolderIsMissing() {
        let provenance = Self.provenance(bundled: nil, loaded: "/usr/lib/x86_64-linux-gnu/libcurl.so.4.8.0", version: "7.88.1",
                                         lacks: ["http3: no HTTP/3 (QUIC)"])
        #expect(provenance.reason?.contains("copied without the lib/sonde folder") == true)
        #expect(provenance.warning?.hasSuffix("; it lacks HTTP/3") == true)
        // A build that carries no libcurl of its own (no lib/sonde in RUNPATH) expects none: only what it lacks.
        let plain = Self.provenance(runpath: nil, bundled: nil, loaded: "/usr/lib/libcurl.so.4", version: "8.5.0", lacks: [])
        #expect(plain.reason == nil && plain.warning == nil)
        let old = Self.provenance(runpath: nil, bundled: nil, loaded: "/usr/lib/libcurl.so.4", version: "7.88.1",
                                  lacks: ["http3: no HTTP/3 (QUIC)", "queueTime: …"])
        #expect(old.warning == "libcurl 7.88.1 lacks HTTP/3, the queue timer")
    }

    @Test func aLibcurlChosenOnPurposeIsNotABlame() {
        let provenance = Self.provenance(loaded: "/elsewhere/libcurl.so.4", version: "8.11.0", chosen: true)
        #expect(provenance.reason == "chosen with --libcurl or SONDE_LIBCURL")
        #expect(provenance.warning?.contains("chosen with --libcurl") == true)
    }

    @Test func theRunpathIsReadFromTheRunningExecutable() {
        // The test bundle runs from the build folder: whatever its RUNPATH, reading it must not fail or trap,
        // and an $ORIGIN entry expands to the executable's folder.
        let current = LibcurlProvenance.current
        #expect(!current.loadedVersion.isEmpty)
        #expect(!LibcurlProvenance.expand("$ORIGIN/x").contains("$ORIGIN"))
        #expect(LibcurlProvenance.expand("/usr/lib/sonde") == "/usr/lib/sonde")
    }
}
