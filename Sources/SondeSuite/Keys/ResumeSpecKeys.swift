import SondeTransfer

// The keys of a resume check (`sonde resume`, `kind: resume`) that no other kind has.

extension SpecKey {
    public static let upload = SpecKey("upload", .text, isPath: true, valueName: "file",
                                       summary: "File to run resumable-upload trials of (relative to the suite file's folder)",
                                       help: "Run upload trials of this file instead of download trials.")
    public static let uploadProtocol = SpecKey(
        "protocol", .text, choices: ["ietf", "tus"], summary: "Upload protocol (default ietf)",
        help: "With --upload: ietf (Resumable Uploads for HTTP, the draft URLSession speaks; the default) or tus (tus 1.0).")
    public static let interopVersion = SpecKey(
        "interop-version", .integer, bound: .integer(UploadProtocol.ietfVersions), summary: "IETF resumable-upload interop version (default 8)",
        help: "With --protocol ietf: the draft's interop version, 3 (iOS 17), 5 (iOS 18.0), 6 (iOS 18.1) … 8 (draft -11, the default).")
    public static let check = SpecKey("check", .boolean, summary: "Only the resumability verdict: no trials",
                                      help: "Only the resumability verdict: no reference download, no trials.")
    public static let resumeHTTP3 = SpecKey(
        "http3", .boolean, summary: "Run the verdict and the trials over HTTP/3, racing QUIC against TCP (not with http3-only)",
        help: "Run the verdict and the trials over HTTP/3, racing QUIC against TCP as libcurl does (needs a libcurl with QUIC; see sonde version).")
    public static let resumeHTTP3Only = SpecKey(
        "http3-only", .boolean, summary: "Run the verdict and the trials over HTTP/3 only, no fallback (not with http3)",
        help: "Run the verdict and the trials over HTTP/3 only, without fallback to TCP.")
    public static let trials = SpecKey("trials", .integer, bound: .integer(1...100_000), summary: "Interrupted-transfer trials (default 10)",
                                       help: "How many interrupted downloads to run (default 10).")
    public static let interruptsPerTrial = SpecKey(
        "interrupts-per-trial", .integer, bound: .integer(0...1000), summary: "Interruptions per trial (default 1)",
        help: "Interruptions per trial, at random offsets (0: uninterrupted control downloads; default 1).")
    public static let interruptAt = SpecKey(
        "interrupt-at", .textList, schemaShape: .offsets, valueName: "offsets",
        summary: "Offsets: bytes (512KiB) or shares (50%); an item may hold several, comma-separated",
        help: "Interrupt at these offsets instead (comma-separated or repeated): bytes (1048576, 512KiB, 4MB) or a share of the length (50%).")
    public static let kinds = SpecKey("kinds", .text, summary: "Interruption kinds in turn: abort, drop, kill (comma-separated)",
                                      help: "Interruption kinds to take in turn: abort, drop, kill (comma-separated; default all three).")
    public static let seed = SpecKey("seed", .unsigned, summary: "Random seed of the trial plan",
                                     help: "Seed of the random offsets, kinds and jitter, to replay a run (default: a random one, recorded in the report).")
    public static let keepFiles = SpecKey("keep-files", .boolean, summary: "Keep the downloaded files",
                                          help: "Keep each trial's file: trial-N.bin when it verified, trial-N.corrupt when not.")
    public static let retries = SpecKey("retries", .integer, bound: .integer(0...100), summary: "Retries per transfer (default 5)",
                                        help: "Retries per trial of what is retryable (timeouts, resets, 5xx, 429; never other 4xx; default 5).")
    public static let stallTimeout = SpecKey(
        "stall-timeout", .duration, bound: .duration(1...SpecRules.maxTimeoutS), valueName: "duration", summary: "How long a transfer may stall (default 30s)",
        help: "A transfer that receives nothing for this long fails (timedOut) and is retried (default 30s).")
}
