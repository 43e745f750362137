import Foundation
import GRDB
import SondeCore

/// The history file on disk, before SQLite opens it: never a symbolic link, a regular file, a
/// SQLite database (or empty), created without following links. Errors in words.
enum HistoryFile {
    /// The first 16 bytes of every SQLite 3 database file.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)
    /// SQLite's companion files of a database in WAL or rollback mode.
    static let companions = ["-wal", "-shm", "-journal"]

    /// Checks `path` and its companions, or creates `path` (and its missing parent folders) when `create`.
    static func prepare(_ path: String, create: Bool) throws(TaskError) {
        for companion in companions where kind(path + companion) == S_IFLNK {
            throw TaskError(code: .localIOError, message: "history \(path): \(path + companion) is a symbolic link, which sonde does not open")
        }
        switch kind(path) {
        case nil:
            guard create else {
                throw TaskError(code: .localIOError, message: "history \(path) does not exist: record runs into it with --history \(path) "
                    + "on probe, soak, resume, run or demo")
            }
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty && kind(parent) == nil {
                do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
                    throw TaskError(code: .localIOError, message: "history \(path): cannot create the folder \(parent): \(error.localizedDescription)")
                }
            }
            let descriptor = try NoFollowFile.create(path, mode: 0o644)
            close(descriptor)
        case S_IFLNK:
            throw TaskError(code: .localIOError, message: "history \(path) is a symbolic link, which sonde does not open: give the file itself")
        case S_IFREG:
            try requireSQLite(path)
        default:
            throw TaskError(code: .localIOError, message: "history \(path) is not a regular file (a folder or a device): give a file path")
        }
    }

    /// The file type bits of `path` (`lstat`, so a link is a link), nil when nothing is there.
    private static func kind(_ path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// An empty file is a new database; anything else must start with SQLite's header.
    private static func requireSQLite(_ path: String) throws(TaskError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TaskError(code: .localIOError, message: "history \(path): cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: sqliteHeader.count)
        let count = read(descriptor, &header, header.count)
        guard count == 0 || (count == header.count && header == sqliteHeader) else {
            throw notSQLite(path)
        }
    }

    private static func notSQLite(_ path: String) -> TaskError {
        TaskError(code: .localIOError, message: "history \(path) is not a SQLite database (sonde's history is one): "
            + "give another path, or move that file away")
    }

    /// A SQLite database whose pages do not hold together (SQLITE_CORRUPT).
    private static func damaged(_ path: String, _ error: DatabaseError) -> TaskError {
        TaskError(code: .localIOError, message: "history \(path) is damaged (SQLite: \(error.message ?? "\(error.resultCode)")): "
            + "restore it from a backup, or move it away and sonde starts a new one")
    }

    /// `path` as a SQLite URI filename (`file:///abs/path?parameters`), relative paths made
    /// absolute and `%`, `?` and `#` percent-encoded. SQLite reads it so when built with URI
    /// filenames on (Debian's is); one that is not opens nothing and says so.
    static func uri(_ path: String, parameters: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var encoded = ""
        for scalar in absolute.unicodeScalars {
            switch scalar {
            case "%", "?", "#": encoded += "%" + String(scalar.value, radix: 16, uppercase: true)
            default: encoded.unicodeScalars.append(scalar)
            }
        }
        return "file://" + encoded + "?" + parameters
    }

    /// `error` (GRDB's, or already a TaskError) as a `TaskError` naming the file.
    static func failure(_ path: String, _ error: any Error, doing what: String = "open") -> TaskError {
        if let error = error as? TaskError { return error }
        if let error = error as? DatabaseError {
            if error.resultCode == .SQLITE_NOTADB { return notSQLite(path) }
            if error.resultCode == .SQLITE_CORRUPT { return damaged(path, error) }
            return TaskError(code: .localIOError, message: "history \(path): cannot \(what): \(error.message ?? "\(error.resultCode)")")
        }
        return TaskError(code: .localIOError, message: "history \(path): cannot \(what): \(error)")
    }
}
