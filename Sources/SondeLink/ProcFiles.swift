#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing /proc files (sizes read as 0, so they are read to the end), on the calling
/// thread: /proc/sys/net and /proc/net answer for the calling thread's network namespace.
enum ProcFiles {
    /// The file's bytes up to `maxBytes`, or nil when it cannot be opened.
    static func read(_ path: String, maxBytes: Int = 1 << 20) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while result.count < maxBytes {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            result += chunk.prefix(count)
        }
        return Array(result.prefix(maxBytes))
    }

    /// Writes `value` to the sysctl file `path`; a LinkError naming it when that fails.
    static func writeSysctl(_ path: String, _ value: String) throws(LinkError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LinkError.setup("setting \(path)", code: -errno) }
        defer { close(descriptor) }
        let written = value.withCString { write(descriptor, $0, strlen($0)) }
        guard written >= 0 else { throw LinkError.setup("setting \(path)", code: -errno) }
    }
}
