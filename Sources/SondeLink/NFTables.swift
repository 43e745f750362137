import CLinkShim
#if canImport(Glibc)
import Glibc
#endif

/// nftables commands run in-process through nft's own library, libnftables.so.1 (opened with
/// dlopen: Debian package `nftables`, which `make test` installs; sonde builds without it).
///
/// Threading: any thread; calls are serialized (libnftables keeps global state). Commands act on
/// the calling thread's network namespace.
enum NFTables {
    /// Why nothing beyond the host's loopback is reachable when the library is missing.
    static let missing = "nftables is not installed (libnftables.so.1 was not found; Debian/Ubuntu: apt-get install nftables)"

    /// Whether libnftables could be opened.
    static var isAvailable: Bool { sonde_link_nft_available() == 1 }

    /// Runs `commands` (nft's syntax, as `nft -f` reads it: one transaction) and returns nft's
    /// output (JSON when `json`). Output beyond 1 MiB is refused rather than cut.
    static func run(_ commands: String, json: Bool = false) throws(LinkError) -> String {
        let outputCapacity = 1 << 20, errorCapacity = 16_384
        var output = [CChar](repeating: 0, count: outputCapacity)
        var error = [CChar](repeating: 0, count: errorCapacity)
        let result = output.withUnsafeMutableBufferPointer { out in
            error.withUnsafeMutableBufferPointer { err in
                sonde_link_nft_run(commands, json ? 1 : 0, out.baseAddress, outputCapacity, err.baseAddress, errorCapacity)
            }
        }
        let text = Self.string(output)
        switch result {
        case 0:
            return text
        case -ENOENT:
            throw LinkError(.setup, missing)
        case -EIO:
            let reason = Self.string(error).split(separator: "\n").first.map(String.init) ?? "no reason given"
            throw LinkError(.setup, "nft refused the link's rules: \(reason)")
        default:
            throw LinkError.setup("running nft", code: result)
        }
    }

    /// The NUL-terminated text at the start of `characters`.
    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
