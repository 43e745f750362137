#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SondeCore

/// A child process that continues a download from resume data on disk and kills itself with
/// SIGKILL at a planned byte: the `processKill` interruption. The parent only learns what the
/// child left on disk (partial file, resume data, leg report), as an app's next launch would.
public struct WorkerCommand: Sendable {
    /// The sonde executable and the arguments that select its worker mode; the runner appends
    /// `--resume-data P --settings S --die-at N --leg-report L`.
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
    }

    /// Starts the child, calls `poll` about every 10 ms while it runs, and waits for it (at most
    /// `timeoutSeconds`, then it is killed).
    func run(extra: [String], timeoutSeconds: Double, poll: () -> Void) -> Exit {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // stdout is not the child's to use; its stderr is the parent's (a worker's error is worth seeing).
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        _ = Self.addCloseFrom?(&actions, 3)
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
            poll()
            usleep(10_000)
        }
        let signal = status & 0x7f
        if signal == 0 { return .exited((status >> 8) & 0xff) }
        return signal == SIGKILL ? .killed : .signalled(signal)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), not exported to Swift: nothing
    /// of the parent's (sockets, files) leaks into the child.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
