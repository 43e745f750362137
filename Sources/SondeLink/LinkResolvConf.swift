import CLinkShim
#if canImport(Glibc)
import Glibc
#endif

/// A `nat64` link's own /etc/resolv.conf: the host's file (read once, at the link's start) gives
/// the DNS64's upstreams (its `nameserver` lines, at most `maxNameservers` as glibc reads them,
/// numeric IPv4 or IPv6 without a scope) and the lines the link keeps (`search`, `domain`,
/// `options`); the link's file names the DNS64 instead (`nameserver fd53:6f6e:6465::53`).
///
/// The file is seen only inside the link: `mountNamespace` makes a mount namespace (unshare
/// CLONE_NEWNS on a thread of its own, / a recursive slave, the generated file bind-mounted over
/// /etc/resolv.conf, its source unlinked at once so nothing stays on disk), which
/// `LinkSession.enter` enters with the network namespace. The host's /etc/resolv.conf is never
/// written.
struct LinkResolvConf: Sendable, Equatable {
    static let path = "/etc/resolv.conf"
    static let maxNameservers = 3
    static let maxBytes = 1 << 16

    var upstreams: [DNS64Server.Upstream]
    /// The host's `search`, `domain` and `options` lines, as they were.
    var keptLines: [String]

    /// The host's file read (nil when it cannot be read: no upstreams).
    static func readHost() -> LinkResolvConf {
        parse(String(decoding: ProcFiles.read(path, maxBytes: maxBytes) ?? [], as: UTF8.self))
    }

    static func parse(_ text: String) -> LinkResolvConf {
        var upstreams: [DNS64Server.Upstream] = []
        var kept: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = fields.first else { continue }
            switch keyword {
            case "nameserver":
                guard fields.count >= 2, upstreams.count < maxNameservers else { continue }
                let address = String(fields[1])
                var v4 = in_addr(), v6 = in6_addr()
                if inet_pton(AF_INET, address, &v4) == 1 {
                    upstreams.append(.init(address: address, family: 4))
                } else if !address.contains("%"), inet_pton(AF_INET6, address, &v6) == 1 {
                    upstreams.append(.init(address: address, family: 6))
                }
            case "search", "domain", "options":
                kept.append(String(line))
            default:
                continue
            }
        }
        return LinkResolvConf(upstreams: upstreams, keptLines: kept)
    }

    /// The link's file: the DNS64 and the kept lines.
    var linkFile: String {
        "# sonde --link nat64: the link's DNS64 (the host's resolv.conf is unchanged)\nnameserver "
            + LinkAddressPlan.resolverAddressText + "\n" + keptLines.map { $0 + "\n" }.joined()
    }

    /// A mount namespace in which /etc/resolv.conf is `linkFile`; returns it open (close-on-exec).
    /// Runs on a thread of its own (`LinkSession.onOwnThread`), which ends with the namespace.
    /// - Parameter scratch: where the file is written before it is mounted (created exclusively,
    ///   not through a symlink, and unlinked once mounted).
    func mountNamespace(scratch: String) throws(LinkError) -> Int32 {
        let result: Result<Int32, LinkError> = LinkSession.onOwnThread { [linkFile] () -> Result<Int32, LinkError> in
            let file = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard file >= 0 else { return .failure(LinkError.setup("creating \(scratch)", code: -errno)) }
            let bytes = Array(linkFile.utf8)
            let written = write(file, bytes, bytes.count)
            close(file)
            defer { unlink(scratch) }
            guard written == bytes.count else { return .failure(LinkError.setup("writing \(scratch)", code: -errno)) }
            let unshared = sonde_link_unshare_mount_slave()
            guard unshared == 0 else { return .failure(LinkError.setup("creating the link's mount namespace", code: unshared)) }
            let mounted = sonde_link_bind_mount(scratch, Self.path)
            guard mounted == 0 else { return .failure(LinkError.setup("bind-mounting the link's resolv.conf over \(Self.path)", code: mounted)) }
            let namespace = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC)
            guard namespace >= 0 else { return .failure(LinkError.setup("opening the link's mount namespace", code: -errno)) }
            return .success(namespace)
        }
        return try result.get()
    }
}
