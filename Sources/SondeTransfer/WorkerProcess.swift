#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SondeCore

/// A child process that continues a download from resume data on disk and kills itself with
/// SIGKILL at a planned byte: the `processKill` interruption. The parent only learns what the
/// child left on disk (partial file, resume data, leg report), as an app's next launch would.
///
/// Secrets (the transfer settings: headers such as Authorization) reach the child through a pipe
/// on descriptor `inputDescriptor`, written and closed by the parent before the child starts:
/// they are never on disk, whichever process is killed when.
public struct WorkerCommand: Sendable {
    /// The descriptor on which a worker finds its input (`run(input:)`).
    public static let inputDescriptor: Int32 = 3

    /// The sonde executable and the arguments that select its worker mode; the runner appends
    /// `--resume-data P --settings-fd 3 --die-at N --leg-report L`.
    public var executable: String
    public var arguments: [String]

    public init(executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    /// How the child ended.
    enum Exit: Equatable {
        case killed
        case exited(Int32)
        case signalled(Int32)
        case failedToStart(String)
        case timedOut
        /// `poll` asked for the end (the run stopped): the child was killed.
        case stopped
    }

    /// Starts the child with `input` readable on its descriptor `inputDescriptor` (a pipe, at its
    /// end after `input`), calls `poll` about every 10 ms while it runs, and waits for it (at most
    /// `timeoutSeconds`, then it is killed; at once when `poll` returns true).
    func run(extra: [String], input: [UInt8] = [], timeoutSeconds: Double, poll: () -> Bool) -> Exit {
        let readEnd: Int32
        switch Self.inputPipe(holding: input) {
        case .success(let descriptor): readEnd = descriptor
        case .failure(let error): return .failedToStart(error.message)
        }
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // stdout is not the child's to use; its stderr is the parent's (a worker's error is worth seeing).
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // `readEnd` is above 9 (see `inputPipe(holding:)`), so dup2 makes a new descriptor without close-on-exec.
        posix_spawn_file_actions_adddup2(&actions, readEnd, Self.inputDescriptor)
        _ = Self.addCloseFrom?(&actions, Self.inputDescriptor + 1)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments + extra).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard code == 0 else { return .failedToStart("cannot start \(executable): \(String(cString: strerror(code)))") }
        let deadline = monotonicMicroseconds() + Int64(timeoutSeconds * 1_000_000)
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { return .failedToStart("lost the worker process: \(String(cString: strerror(errno)))") }
            if monotonicMicroseconds() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return .timedOut
            }
            if poll() {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return .stopped
            }
            usleep(10_000)
        }
        let signal = status & 0x7f
        if signal == 0 { return .exited((status >> 8) & 0xff) }
        return signal == SIGKILL ? .killed : .signalled(signal)
    }

    /// A pipe already holding all of `bytes`, its write end closed: returns the read end
    /// (close-on-exec, numbered 10 or above). The pipe is grown to fit (up to the 1 MiB an
    /// unprivileged process may ask for), and the write end is non-blocking, so input that does
    /// not fit is an error, never a hang.
    static func inputPipe(holding bytes: [UInt8]) -> Result<Int32, TaskError> {
        var ends: [Int32] = [-1, -1]
        // (Glibc's module has no pipe2: close-on-exec is set at once; nothing else spawns meanwhile.)
        guard Glibc.pipe(&ends) == 0 else {
            return .failure(TaskError(code: .localIOError, message: "cannot make a pipe for the worker: \(systemErrorMessage())"))
        }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        defer { close(ends[1]) }
        let readEnd = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
        close(ends[0])
        guard readEnd >= 0 else {
            return .failure(TaskError(code: .localIOError, message: "cannot make a pipe for the worker: \(systemErrorMessage())"))
        }
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (Linux), which Glibc's module does not export
        if bytes.count > 65_536 { _ = fcntl(ends[1], setPipeSize, Int32(min(bytes.count, 1 << 20))) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        do throws(TaskError) {
            try writeAll(descriptor: ends[1], bytes: bytes, path: "the worker's input pipe")
        } catch {
            close(readEnd)
            return .failure(TaskError(code: .localIOError, message: "cannot hand \(bytes.count) bytes to the worker: \(error.message)"))
        }
        return .success(readEnd)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), not exported to Swift: nothing
    /// of the parent's (sockets, files) leaks into the child.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
