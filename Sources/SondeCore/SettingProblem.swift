/// Why a setting of an engine cannot be used: the setting's key as a suite names it (`duration`,
/// `backoff-initial`) and the problem in words without it (`must be at most 30 days (720h)`).
/// The command line says it as `--duration must be …`, a suite as `duration: must be …`
/// (`SpecProblem`): the model holds no command-line words.
public struct SettingProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "\(key): \(message)" }
}
