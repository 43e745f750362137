import CurlShim
import Foundation
import SondeCore
import SondeHTTP

/// `--libcurl PATH` and `SONDE_LIBCURL=PATH`: run sonde on another libcurl.
///
/// libcurl is loaded when the process starts (DT_NEEDED libcurl.so.4), so another one needs a new
/// process: sonde makes a private folder (mkdtemp, mode 0700) holding `libcurl.so.4` → sonde's
/// version wrapper and `libcurl-sonde-real.so.4` → PATH (scripts/provide-libcurl.sh explains the
/// wrapper; without one, `libcurl.so.4` → PATH), and symlinks to the libraries PATH loaded from its
/// own folder (a wheel's hashed libssl, found by its RPATH $ORIGIN, which is the symlink's folder),
/// puts that folder first in LD_LIBRARY_PATH and re-executes itself (/proc/self/exe) once. The new process restores LD_LIBRARY_PATH, removes the
/// folder (its libraries are mapped by then) and keeps SONDE_LIBCURL, so the sonde processes it
/// starts (resume workers) run on the same libcurl.
enum LibcurlSelection {
    static let variable = "SONDE_LIBCURL"
    /// Set by the re-executing parent: the private folder to remove.
    static let folderVariable = "SONDE_LIBCURL_FOLDER"
    /// Set by the re-executing parent: LD_LIBRARY_PATH as it was ("\u{0}" when it was unset).
    static let savedVariable = "SONDE_LIBCURL_SAVED_LD_LIBRARY_PATH"
    private static let unsetMarker = "\u{1}unset"
    /// Folders the dynamic linker searches anyway: their libraries need no symlink.
    private static let systemFolders: Set<String> = ["/lib", "/usr/lib", "/lib64", "/usr/lib64",
                                                    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"]

    /// Returns `arguments` without `--libcurl PATH`. When a libcurl was asked for and is not the
    /// running one, re-executes sonde on it and does not return; exits with status 64 when PATH is
    /// not a loadable libcurl.
    static func apply(_ arguments: [String]) -> [String] {
        var rest: [String] = []
        var requested: String? = nil
        var index = 0
        var literal = false
        while index < arguments.count {
            let argument = arguments[index]
            if literal || argument == "--" {
                literal = true
                rest.append(argument)
            } else if argument == "--libcurl" {
                guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else { fail("--libcurl needs the path of a libcurl.so") }
                requested = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--libcurl=") {
                requested = String(argument.dropFirst("--libcurl=".count))
            } else {
                rest.append(argument)
            }
            index += 1
        }
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment[folderVariable] {
            finishReexec(folder: folder, saved: environment[savedVariable])
            if let requested = requested ?? environment[variable], !requested.isEmpty { warnIfNotRunning(requested) }
            return rest
        }
        guard let requested = requested ?? environment[variable].flatMap({ $0.isEmpty ? nil : $0 }) else { return rest }
        let source = environment[variable] == requested ? "SONDE_LIBCURL" : "--libcurl"
        guard let given = realPath(requested) else { fail("\(source) \(requested): no such file") }
        if CurlLibrary.path == given { return rest }
        var resolved = [CChar](repeating: 0, count: 4096)
        var version = [CChar](repeating: 0, count: 64)
        var libraries = [CChar](repeating: 0, count: 32 * 1024)
        var reason = [CChar](repeating: 0, count: 1024)
        guard sonde_inspect_libcurl(given, &resolved, resolved.count, &version, version.count, &libraries, libraries.count,
                                    &reason, reason.count) == 1 else {
            fail("\(source) \(requested) is not a libcurl: \(String(cString: reason))")
        }
        let real = String(cString: resolved)
        if CurlLibrary.path == real { return rest }
        reexec(on: real, libraries: String(cString: libraries), source: source, arguments: rest)
    }

    /// The version wrapper that scripts/provide-libcurl.sh builds, beside the running libcurl or
    /// where a build or an install keeps it; nil when there is none.
    private static var versionWrapper: String? {
        let name = "libcurl-sonde-versions.so"
        var folders: [String] = []
        if let loaded = CurlLibrary.loadedPath { folders.append((loaded as NSString).deletingLastPathComponent) }
        if let executable = realPath("/proc/self/exe") {
            let here = (executable as NSString).deletingLastPathComponent
            folders += [here + "/../../sonde-libcurl/lib", here + "/../lib/sonde"]
        }
        return folders.map { $0 + "/" + name }.first { FileManager.default.fileExists(atPath: $0) }.flatMap(realPath)
    }

    /// Makes the private folder for the libcurl at `real` and re-executes; never returns.
    private static func reexec(on real: String, libraries: String, source: String, arguments: [String]) -> Never {
        var template = Array((NSTemporaryDirectory() + "sonde-libcurl-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { fail("cannot make a folder for \(source): \(String(cString: strerror(errno)))") }
        let folder = String(cString: created)
        let libcurlFolder = (real as NSString).deletingLastPathComponent
        var links: [(String, String)]
        if let wrapper = versionWrapper {
            links = [("libcurl.so.4", wrapper), ("libcurl-sonde-real.so.4", real)]
        } else {
            links = [("libcurl.so.4", real)]
        }
        if !systemFolders.contains(libcurlFolder) {
            for line in libraries.split(separator: "\n") where String(line) != real
                && !["libcurl.so.4", "libcurl-sonde-real.so.4"].contains((String(line) as NSString).lastPathComponent) {
                links.append(((String(line) as NSString).lastPathComponent, String(line)))
            }
        }
        for (name, target) in links where symlink(target, folder + "/" + name) != 0 && errno != EEXIST {
            removeFolder(folder)
            fail("cannot link \(target) into \(folder): \(String(cString: strerror(errno)))")
        }
        let saved = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]
        setenv(savedVariable, saved ?? unsetMarker, 1)
        setenv(folderVariable, folder, 1)
        setenv(variable, real, 1)
        setenv("LD_LIBRARY_PATH", saved.map { $0.isEmpty ? folder : folder + ":" + $0 } ?? folder, 1)
        let argv0 = CommandLine.arguments.first ?? "sonde"
        var cArguments: [UnsafeMutablePointer<CChar>?] = ([argv0] + arguments).map { strdup($0) }
        cArguments.append(nil)
        execv("/proc/self/exe", &cArguments)
        let error = String(cString: strerror(errno))
        removeFolder(folder)
        fail("cannot re-execute sonde on \(real): \(error)")
    }

    /// In the re-executed process: puts LD_LIBRARY_PATH back and removes the private folder.
    private static func finishReexec(folder: String, saved: String?) {
        _ = CurlLibrary.path  // resolves the libcurl's real path while its symlink still exists
        if let saved, saved != unsetMarker { setenv("LD_LIBRARY_PATH", saved, 1) } else { unsetenv("LD_LIBRARY_PATH") }
        unsetenv(folderVariable)
        unsetenv(savedVariable)
        // Only a folder this scheme made: a sonde-libcurl-XXXXXX folder holding symlinks.
        if (folder as NSString).lastPathComponent.hasPrefix("sonde-libcurl-") { removeFolder(folder) }
    }

    private static func warnIfNotRunning(_ requested: String) {
        guard let real = realPath(requested), let running = CurlLibrary.path, running != real else { return }
        StandardStreams.writeError(Data("sonde: asked to run on libcurl \(real), but the dynamic linker loaded \(running)\n".utf8))
    }

    /// Removes the symlinks of a private folder, then the folder.
    private static func removeFolder(_ folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            var info = stat()
            if lstat(folder + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK { unlink(folder + "/" + name) }
        }
        rmdir(folder)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func fail(_ message: String) -> Never {
        StandardStreams.writeError(Data("sonde: \(message)\n".utf8))
        exit(ExitStatus.usage.rawValue)
    }
}
