import SondeCore

/// `kind: resume` (`sonde resume`): a download's resumability verdict and interrupted trials, or
/// resumable uploads.
public enum ResumeKind: CheckKind {
    public typealias Spec = ResumeSpec

    public static let name = "resume"


    /// None: the verdict and trials pass or fail by themselves.
    public static func judges(_ threshold: Threshold) -> Bool { false }

    public static let metricsHint = "a resume check has no threshold metrics: its verdict and trials pass or fail by themselves"
}
