import ArgumentParser
import SondeCore

/// A duration on the command line, parsed by the one parser of sonde (`Quantity.duration`):
/// `250ms`, `10s`, `5m`, `1h`, a bare number meaning seconds. Stored in seconds: finite and not
/// negative; each command bounds it above in its own `validate`, saying the bound.
struct DurationArgument: ExpressibleByArgument, Equatable, CustomStringConvertible {
    var seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    init?(argument: String) {
        guard let seconds = Quantity.duration(argument.lowercased()) else { return nil }
        self.seconds = seconds
    }

    var description: String {
        if seconds >= 1 && seconds < 1e15 && seconds == seconds.rounded() { return "\(Int(seconds))s" }
        return "\(seconds * 1000)ms"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// A size on the command line, parsed by sonde's one parser (`Quantity.size`): `64`, `512KiB`,
/// `16MiB`, a bare number meaning bytes. Each command bounds it in its own `validate`.
struct SizeArgument: ExpressibleByArgument, Equatable, CustomStringConvertible {
    var bytes: Int64

    init(bytes: Int64) { self.bytes = bytes }

    init?(argument: String) {
        guard let bytes = Quantity.size(argument) else { return nil }
        self.bytes = bytes
    }

    var description: String { String(bytes) }

    static var defaultCompletionKind: CompletionKind { .default }
}
