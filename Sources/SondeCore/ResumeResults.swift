/// The resume sections of one run: the trials and the verdicts, in the order they were recorded.
public struct ResumeResults: Sendable, Equatable {
    public var trials: [ResumeTrial]
    public var verdicts: [ResumeVerdict]

    public init(trials: [ResumeTrial] = [], verdicts: [ResumeVerdict] = []) {
        self.trials = trials
        self.verdicts = verdicts
    }

    public var isEmpty: Bool { trials.isEmpty && verdicts.isEmpty }

    /// A resume run passes when every trial ended intact and every URL checked is resumable.
    public var passed: Bool { trials.allSatisfy(\.intact) && verdicts.allSatisfy(\.resumable) }
}
