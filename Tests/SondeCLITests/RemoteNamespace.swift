import Foundation
import Testing

/// A "remote" network for the link tests, made with `ip` (iproute2): a namespace
/// `sonde-test-remote-<test pid>-<n>` joined to the host by a veth pair (host end `srt<n>h`,
/// 10.213.n.1/30; remote end `srt<n>r`, 10.213.n.2/30, the remote's default route via the host), a
/// server address 10.214.n.1/32 on the remote's `lo`, and a host route to it via 10.213.n.2 (so a
/// destination behind a router, as a real one is). 10.213.0.0/16 and 10.214.0.0/16 are private
/// (RFC 1918); `n` (1…250) is the first whose addresses no host device has.
///
/// `remove()` ends every process started in it and deletes the namespace, which deletes the veth
/// pair and the host's route with it. Not thread-safe: one test at a time.
final class RemoteNamespace {
    let name: String
    let hostDevice: String
    /// The host's address on the veth (the address the host reaches the remote from).
    let hostAddress: String
    /// The address servers in the remote listen on, behind the host route.
    let serverAddress: String
    private var pids: [pid_t] = []
    private static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "ip"

    init() throws {
        let used = (try Harness.run(Self.ip, ["-o", "-4", "addr"])).stdout + (try Harness.run(Self.ip, ["-o", "link"])).stdout
        let start = Int(getpid() % 250)
        guard let slot = (0..<250).map({ ($0 + start) % 250 + 1 }).first(where: { !used.contains("10.213.\($0).") && !used.contains("srt\($0)h") }) else {
            throw Harness.SpawnError(message: "no free 10.213.n.0/30 for a remote namespace")
        }
        name = "sonde-test-remote-\(getpid())-\(slot)"
        hostDevice = "srt\(slot)h"
        hostAddress = "10.213.\(slot).1"
        serverAddress = "10.214.\(slot).1"
        let remoteDevice = "srt\(slot)r"
        let steps: [[String]] = [
            ["netns", "add", name],
            ["link", "add", hostDevice, "type", "veth", "peer", "name", remoteDevice, "netns", name],
            ["addr", "add", "\(hostAddress)/30", "dev", hostDevice],
            ["link", "set", hostDevice, "up"],
            ["-n", name, "addr", "add", "10.213.\(slot).2/30", "dev", remoteDevice],
            ["-n", name, "addr", "add", "\(serverAddress)/32", "dev", "lo"],
            ["-n", name, "link", "set", remoteDevice, "up"],
            ["-n", name, "link", "set", "lo", "up"],
            ["-n", name, "route", "add", "default", "via", hostAddress],
            ["route", "add", "\(serverAddress)/32", "via", "10.213.\(slot).2"],
        ]
        for step in steps {
            let result = try Harness.run(Self.ip, step)
            guard result.status == 0 else {
                remove()
                throw Harness.SpawnError(message: "ip \(step.joined(separator: " ")): \(result.stderr)")
            }
        }
    }

    /// Runs a command in the namespace to completion.
    func run(_ arguments: [String], timeout: Double = 30) throws -> Harness.Result {
        try Harness.run(Self.ip, ["netns", "exec", name] + arguments, timeout: timeout)
    }

    /// Starts a command in the namespace (ended by `remove()`); returns its pid.
    @discardableResult
    func spawn(_ arguments: [String], stdout: String, stderr: String) throws -> pid_t {
        let pid = try Harness.spawn(Self.ip, ["netns", "exec", name] + arguments, stdout: stdout, stderr: stderr)
        pids.append(pid)
        return pid
    }

    /// `python3 -m http.server` on `serverAddress:port`, serving `directory`, its log (one line per
    /// request, with the client's address) in `log`; returns once the host gets a 200 from it.
    func startHTTPServer(port: Int, directory: String, log: String) throws {
        try spawn(["python3", "-m", "http.server", "\(port)", "--bind", serverAddress, "--directory", directory], stdout: "/dev/null", stderr: log)
        let up = Harness.waitFor(seconds: 20) {
            ((try? Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "2", "-w", "%{http_code}",
                                                 "http://\(serverAddress):\(port)/"]))?.stdout ?? "") == "200"
        }
        guard up else { throw Harness.SpawnError(message: "the remote's HTTP server did not answer within 20 s") }
    }

    /// The host end's `net.ipv4.conf.DEV.forwarding`.
    var hostForwarding: String { Self.sysctl("net/ipv4/conf/\(hostDevice)/forwarding") }

    /// A sysctl's value under /proc/sys (trimmed), or "" when it cannot be read.
    static func sysctl(_ path: String) -> String {
        ((try? String(contentsOfFile: "/proc/sys/" + path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func remove() {
        for pid in pids { Harness.stop(pid, signal: SIGTERM, seconds: 5) }
        pids = []
        // Anything else still in it (bounded: one pass).
        let left = ((try? Harness.run(Self.ip, ["netns", "pids", name]))?.stdout ?? "").split(separator: "\n").compactMap { Int32($0) }
        for pid in left { kill(pid, SIGKILL) }
        _ = try? Harness.run(Self.ip, ["netns", "del", name])
    }
}
