#if canImport(Glibc)
import Glibc
#endif

/// Creating files and folders without following symbolic links, for everything sonde writes in
/// a run folder (and for the run folder itself).
///
/// Invariants: a file is only ever created by `open(2)` with `O_CREAT | O_EXCL | O_NOFOLLOW`, so
/// a name that already exists (a planted link included) is never written through: it is either
/// removed first (`replace`, which unlinks the link itself, never its target) or an error. A
/// folder is made by `mkdir(2)`, which fails on any existing name, a link to a folder included.
public enum NoFollowFile {
    /// Flags of every file sonde creates: exclusive, never through a link, closed on exec.
    public static let createFlags: Int32 = O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC

    /// Creates `path`, which must not exist (not even as a dangling link); returns the open
    /// descriptor. - Parameter flags: O_WRONLY or O_RDWR (and e.g. O_APPEND).
    public static func create(_ path: String, flags: Int32 = O_WRONLY, mode: mode_t = 0o644) throws(TaskError) -> Int32 {
        let descriptor = open(path, flags | createFlags, mode)
        guard descriptor >= 0 else { throw creationError(path) }
        return descriptor
    }

    /// The bytes of the regular file at `path`, opened without following a link there; an error
    /// for a link, a FIFO or device, a missing file, or one larger than `maxBytes`.
    public static func read(path: String, maxBytes: Int) throws(TaskError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(path): \(systemErrorMessage(errno))") }
        defer { close(descriptor) }
        return try readAll(descriptor: descriptor, path: path, maxBytes: maxBytes)
    }

    /// The bytes of the regular file `components.joined("/")` under the folder `directory`, where
    /// no component is followed if it is a link (each is opened with `openat(2)` and `O_NOFOLLOW`
    /// from its parent's descriptor, the folders with `O_DIRECTORY`); `directory` itself is
    /// opened as named. An error for a link anywhere below `directory`, a missing name, a
    /// component that is `.`, `..`, empty or holds `/`, or a file larger than `maxBytes`. With
    /// `ownSoleLink`, also for a file this process's user does not own or that has more than one
    /// name (a hard link planted beside sonde's files: a file sonde wrote has one name).
    public static func read(in directory: String, components: [String], maxBytes: Int, ownSoleLink: Bool = false) throws(TaskError) -> [UInt8] {
        let path = ([directory] + components).joined(separator: "/")
        func failure(_ why: String) -> TaskError { TaskError(code: .localIOError, message: "cannot read \(path): \(why)") }
        guard !components.isEmpty, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") }) else {
            throw failure("not a plain path below the folder")
        }
        var current = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { throw failure(systemErrorMessage(errno)) }
        for (index, component) in components.enumerated() {
            let last = index == components.count - 1
            let next = openat(current, component, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY))
            let code = errno
            close(current)
            guard next >= 0 else { throw failure(code == ELOOP || code == ENOTDIR ? "\(component) is a link or not a folder" : systemErrorMessage(code)) }
            current = next
        }
        defer { close(current) }
        if ownSoleLink {
            var status = stat()
            guard fstat(current, &status) == 0 else { throw failure(systemErrorMessage(errno)) }
            guard status.st_nlink == 1, status.st_uid == geteuid() else {
                throw failure("not a file sonde wrote (\(status.st_nlink) names, owner \(status.st_uid))")
            }
        }
        return try readAll(descriptor: current, path: path, maxBytes: maxBytes)
    }

    /// The rest of the open regular file `descriptor` (at most `maxBytes`, else an error).
    private static func readAll(descriptor: Int32, path: String, maxBytes: Int) throws(TaskError) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw TaskError(code: .localIOError, message: "cannot read \(path): not a regular file")
        }
        guard status.st_size <= maxBytes else { throw TaskError(code: .localIOError, message: "cannot read \(path): larger than \(maxBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        return Array(bytes.prefix(filled))
    }

    /// Creates `path` afresh: a file or link already there (a leftover `.partial` of a killed
    /// run, or something planted) is unlinked first, the link itself and never what it points
    /// at. Bounded: if something keeps reappearing under the name, it fails after three tries.
    public static func replace(_ path: String, flags: Int32 = O_WRONLY, mode: mode_t = 0o644) throws(TaskError) -> Int32 {
        for _ in 0..<3 {
            let descriptor = open(path, flags | createFlags, mode)
            if descriptor >= 0 { return descriptor }
            guard errno == EEXIST else { break }
            var status = stat()
            // A folder under the name is not ours to remove: that is an error.
            if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
                throw TaskError(code: .localIOError, message: "cannot create \(path): a directory is in the way")
            }
            if unlink(path) != 0 && errno != ENOENT { break }
        }
        throw creationError(path)
    }

    /// Opens an existing file for reading and writing without following a link (for files sonde
    /// itself created earlier, e.g. a download's partial file picked up by a new process), or
    /// creates it exclusively when it does not exist.
    public static func openOrCreate(_ path: String, mode: mode_t = 0o644) throws(TaskError) -> Int32 {
        for _ in 0..<3 {
            let existing = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            if existing >= 0 { return existing }
            guard errno == ENOENT else { break }
            let created = open(path, O_RDWR | createFlags, mode)
            if created >= 0 { return created }
            guard errno == EEXIST else { break }  // created meanwhile: open it
        }
        throw creationError(path)
    }

    /// Makes the folder `path` with `mkdir(2)`: true when made, false when the name exists
    /// (whatever it is: a folder, a file, a link); other failures throw.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(TaskError) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        if errno == EEXIST { return false }
        throw TaskError(code: .localIOError, message: "cannot create the folder \(path): \(systemErrorMessage())")
    }

    /// Makes `path` unless a real folder (not a link to one) is already there.
    public static func ensureDirectory(_ path: String, mode: mode_t = 0o755) throws(TaskError) {
        if try makeDirectory(path, mode: mode) { return }
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw TaskError(code: .localIOError, message: "cannot create the folder \(path): something that is not a folder "
                + "(a file or a symbolic link) is in the way")
        }
    }

    /// Writes `bytes` to `path` through a fresh temporary name (`<path>.tmp`, created
    /// exclusively) renamed over `path`: readers see the old or the new content, never a mix,
    /// and a link at either name is replaced, never followed. No fsync.
    public static func writeReplacing(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(TaskError) {
        let temporary = path + ".tmp"
        let descriptor = try replace(temporary, mode: mode)
        do {
            try writeAll(descriptor: descriptor, bytes: bytes, path: temporary)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let message = "cannot write \(path): \(systemErrorMessage())"
            unlink(temporary)
            throw TaskError(code: .localIOError, message: message)
        }
    }

    private static func creationError(_ path: String, _ code: Int32 = errno) -> TaskError {
        let why: String
        switch code {
        case ELOOP: why = "it is a symbolic link, which sonde does not write through"
        case EEXIST: why = "something is already there (sonde creates its files afresh and never writes through a link)"
        default: why = systemErrorMessage(code)
        }
        return TaskError(code: .localIOError, message: "cannot create \(path): \(why)")
    }
}
