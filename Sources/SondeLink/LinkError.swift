#if canImport(Glibc)
import Glibc
#endif

/// Why an emulated link could not be set up or entered: what sonde needs (privileges), or which
/// step failed and the system's reason. `message` is one sentence a person can act on.
public struct LinkError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The process lacks CAP_NET_ADMIN / CAP_SYS_ADMIN (a usage error: exit 64).
        case privileges
        /// A step of the setup failed (a device, a route, the namespace).
        case setup
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// `step` failed with the shim's `-errno` `code`; a refusal by permission (EACCES, EPERM) is
    /// a `.privileges` error that says what a link needs.
    static func setup(_ step: String, code: Int32) -> LinkError {
        let reason = "\(step) failed: \(String(cString: strerror(-code)))"
        if code == -EACCES || code == -EPERM { return LinkError(.privileges, reason + "; " + LinkNamespace.needs) }
        return LinkError(.setup, reason)
    }
}
