import Foundation
import SondeCore

/// `<output-dir>/latest`: a symbolic link to the newest finished run folder of that output
/// directory, so that a script reads `Reports/latest/report.json` instead of scraping a path.
///
/// Invariants: the link is replaced atomically (a new link under a temporary name, then
/// `rename(2)` over `latest`, which replaces the name itself and never follows what it points
/// to), so a reader sees the old run or the new one, never no link; its target is the run
/// folder's name, relative, so the output directory can move; a `latest` that is not a symbolic
/// link (a folder or file someone made) is left as it is; nothing is ever written through it.
/// A run folder outside the output directory (`--run-dir` elsewhere) leaves the link alone.
public enum LatestRunLink {
    public static let name = "latest"
    /// How many temporary names are tried (each taken one is drawn again).
    static let attempts = 8

    /// Points `<outputDirectory>/latest` at `folder`. Returns what went wrong, in words (nil when
    /// the link was made, or the folder is not directly inside `outputDirectory`).
    public static func point(outputDirectory: String, at folder: RunFolder) -> String? {
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        let run = URL(fileURLWithPath: folder.path).standardizedFileURL
        guard run.deletingLastPathComponent().path == directory else { return nil }
        let link = (directory as NSString).appendingPathComponent(name)
        var status = stat()
        if lstat(link, &status) == 0, status.st_mode & S_IFMT != S_IFLNK {
            return "\(link) is not a symbolic link sonde made: left as it is (it would point at \(run.lastPathComponent))"
        }
        for _ in 0..<attempts {
            let temporary = (directory as NSString).appendingPathComponent(".\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            guard symlink(run.lastPathComponent, temporary) == 0 else {
                if errno == EEXIST { continue }
                return "cannot make \(link): \(systemErrorMessage())"
            }
            guard rename(temporary, link) == 0 else {
                let message = "cannot make \(link): \(systemErrorMessage())"
                unlink(temporary)
                return message
            }
            return nil
        }
        return "cannot make \(link): \(attempts) temporary names in a row were taken"
    }
}
