import ArgumentParser
import SondeRun
import SondeSuite

/// Durations on the command line go through the one parser (`DurationValue`, `Quantity.duration`).
extension DurationValue: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
    public static var defaultCompletionKind: CompletionKind { .default }
}

/// Sizes on the command line go through the one parser (`SizeValue`, `Quantity.size`).
extension SizeValue: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
    public static var defaultCompletionKind: CompletionKind { .default }
}

/// `--progress auto|plain|off`.
extension ProgressMode: ExpressibleByArgument {}
