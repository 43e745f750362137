import Foundation
import SondeCore
import SondeTarget
import Testing
@testable import SondeTransfer

/// One embedded target for the whole test process.
enum TransferTarget {
    static let server = TargetServer(directory: NSTemporaryDirectory() + "sonde-transfer-tests-\(getpid())")
    static let started = Task { try await server.start() }
    static func http() async throws -> String { try await started.value.http }
}

/// Runs blocking transfer work on its own thread, so the in-process target keeps Swift's threads.
func offThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Trials of `url` (abort and drop only: a kill needs the sonde executable, see the CLI tests).
/// The reference comes from `referenceURL` (the same bytes, without the faults under test).
func trials(_ url: String, referenceURL: String? = nil, count: Int = 3, kinds: [InterruptionKind] = [.clientAbort, .connectionDrop],
            at offsets: [TrialPlan.Offset]? = nil, keepFiles: Bool = false, stallMs: Int? = nil,
            directory: String = NSTemporaryDirectory() + "sonde-trials-\(UUID().uuidString)") async throws -> [ResumeTrial] {
    try await offThread { () -> Result<[ResumeTrial], TaskError> in
        do throws(TaskError) {
            var options = DownloadTrialOptions(workDirectory: directory)
            options.kinds = kinds
            options.interruptAt = offsets
            options.keepFiles = keepFiles
            options.retry = RetryPolicy(backoff: BackoffPolicy(initialMs: 20, maxMs: 100, jitter: .none), maxRetries: 4)
            var settings = TransferSettings()
            if let stallMs { settings.stallTimeoutMs = stallMs }
            let runner = try DownloadTrialRunner(url: url, settings: settings, options: options, worker: nil, seed: 99)
            let reference = try DownloadTrialRunner(url: referenceURL ?? url, settings: settings, options: options, worker: nil, seed: 1).reference()
            return .success((1...count).map { runner.runTrial(number: $0, reference: reference, shouldStop: { false }) })
        } catch {
            return .failure(error)
        }
    }.get()
}

func verdict(_ url: String) async throws -> ResumeVerdict {
    try await offThread { () -> Result<ResumeVerdict, TaskError> in
        do throws(TaskError) {
            let settings = TransferSettings()
            var options = DownloadTrialOptions(workDirectory: NSTemporaryDirectory() + "sonde-verdict-\(UUID().uuidString)")
            options.kinds = [.clientAbort]
            let reference = try DownloadTrialRunner(url: url, settings: settings, options: options, worker: nil, seed: 1).reference()
            return .success(try ResumabilityChecker(settings: settings).verdict(url: url, reference: reference))
        } catch {
            return .failure(error)
        }
    }.get()
}

@Suite(.serialized) struct DownloadTrialTests {
    @Test func aWellBehavedServerResumesEveryInterruptionWith206AndWastesNothing() async throws {
        let base = try await TransferTarget.http()
        let results = try await trials(base + "/bytes/2000000", count: 4)
        #expect(results.count == 4)
        for trial in results {
            #expect(trial.intact, "\(trial)")
            #expect(trial.error == nil)
            #expect(trial.interruptions.count == 1)
            #expect(trial.interruptions.allSatisfy { $0.answeredWith == "206" && ($0.resumeLatencyMs ?? -1) >= 0 })
            #expect(trial.bytesWasted == 0, "nothing re-downloaded that the resume data covered")
            #expect(trial.bytesTransferred == 2_000_000)
            #expect(trial.expectedFrom == "reference" && trial.sha256 == trial.expectedSha256)
            #expect(trial.progress.count >= 3 && trial.progress.last?[1] == 2_000_000)
        }
        #expect(Set(results.map { $0.interruptions[0].kind }) == [.clientAbort, .connectionDrop])
    }

    @Test func severalInterruptionsPerTrial() async throws {
        let base = try await TransferTarget.http()
        let results = try await trials(base + "/bytes/3000000", count: 2, at: [.fraction(0.2), .fraction(0.5), .fraction(0.8)])
        for trial in results {
            #expect(trial.intact && trial.interruptions.count == 3 && trial.bytesWasted == 0, "\(trial)")
            #expect(trial.interruptions.map(\.atByte) == trial.interruptions.map(\.atByte).sorted())
        }
    }

    @Test(arguments: [
        ("ignoreRange", "200"), ("wrongRange", "wrongRange"), ("noValidators", "noValidator"), ("weakEtag", "noValidator"),
        ("changing", "200"), ("changing,ignoreIfRange", "validatorChanged"),
    ])
    func aMisbehavingServerCostsARestartButNeverACorruptFile(mode: String, answer: String) async throws {
        let base = try await TransferTarget.http()
        let results = try await trials(base + "/bytes/1000000?mode=\(mode)", count: 2, at: [.fraction(0.5)])
        for trial in results {
            #expect(trial.intact, "\(mode): \(trial)")
            #expect(trial.interruptions.first?.answeredWith == answer, "\(mode): \(trial.interruptions)")
            #expect(trial.bytesWasted > 0, "a restart re-downloads what was there")
            #expect(trial.bytesTransferred - trial.bytesWasted == 1_000_000)
            if mode.hasPrefix("changing") {
                // Another version than the reference's: only the server's digest can vouch for it.
                #expect(trial.expectedFrom == "Repr-Digest" && trial.expectedSha256 != results[0].expectedSha256 || trial.trial == 1)
            }
        }
    }

    @Test func aLyingContentRangeIsNeverReportedIntactAndLeavesNoFile() async throws {
        let base = try await TransferTarget.http()
        let directory = NSTemporaryDirectory() + "sonde-trials-\(UUID().uuidString)"
        let results = try await trials(base + "/bytes/1000000?mode=lyingRange", count: 2, at: [.fraction(0.5)], keepFiles: true,
                                       directory: directory)
        for trial in results {
            #expect(!trial.intact)
            #expect(trial.sha256 != nil && trial.sha256 != trial.expectedSha256)
            #expect(trial.error?.code == .corruptTransfer, "\(trial.error?.message ?? "")")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.filter { $0.hasSuffix(".bin") || $0.hasSuffix(".part") }.isEmpty, "\(files)")
        #expect(files.filter { $0.hasSuffix(".corrupt") }.count == 2, "kept for inspection under a name that says so: \(files)")
    }

    @Test func refusalsAreRetriedWithTheServersRetryAfter() async throws {
        let base = try await TransferTarget.http()
        let key = UUID().uuidString
        let results = try await trials(base + "/bytes/200000?refuse=2&status=503&retryAfter=0&key=\(key)",
                                       referenceURL: base + "/bytes/200000", count: 1, at: [.fraction(0.5)])
        let trial = try #require(results.first)
        #expect(trial.intact, "\(trial)")
        #expect(trial.retries.count == 2)
        #expect(trial.retries.allSatisfy { $0.status == 503 && $0.retryAfter == "0" && $0.delayMs == 0 })

        let tooMany = try await trials(base + "/bytes/200000?refuse=50&status=429&key=\(UUID().uuidString)",
                                       referenceURL: base + "/bytes/200000", count: 1)
        #expect(tooMany[0].intact == false && tooMany[0].retries.count == 4, "bounded: \(tooMany[0].retries.count) retries")
        #expect(tooMany[0].error?.code == .httpStatus)

        let missing = try await trials(base + "/status/404", referenceURL: base + "/bytes/200000", count: 1)
        #expect(missing[0].retries.isEmpty, "a 404 is never retried")
        #expect(missing[0].error?.code == .httpStatus && !missing[0].intact)
    }

    @Test func aServerDropOrStallIsAnUnplannedInterruptionThatResumes() async throws {
        let base = try await TransferTarget.http()
        let dropped = try await trials(base + "/bytes/500000?dropAt=300000", referenceURL: base + "/bytes/500000", count: 1,
                                       kinds: [.clientAbort], at: [.bytes(100_000)])
        let trial = try #require(dropped.first)
        #expect(trial.intact, "\(trial)")
        #expect(trial.interruptions.map(\.kind) == [.clientAbort, .unplanned])
        #expect(trial.interruptions[1].atByte == 300_000 && trial.interruptions[1].answeredWith == "206")
        #expect(trial.retries.count == 1 && trial.bytesWasted == 0)

        let stalled = try await trials(base + "/bytes/500000?stallAfter=100000&stallMs=3000", referenceURL: base + "/bytes/500000",
                                       count: 1, kinds: [.clientAbort], at: [.bytes(400_000)], stallMs: 1000)
        #expect(stalled[0].intact, "\(stalled[0])")
        #expect(stalled[0].retries.first?.reason == "timedOut", "\(stalled[0].retries)")
    }
}

@Suite(.serialized) struct ResumabilityVerdictTests {
    @Test func aWellBehavedResourceIsResumable() async throws {
        let base = try await TransferTarget.http()
        let result = try await verdict(base + "/bytes/100000")
        #expect(result.resumable, "\(result.checks)")
        #expect(result.checks.filter { $0.required }.allSatisfy { $0.passed })
        #expect(result.checks.first { $0.name == "digest" }?.passed == true)
        #expect(result.checks.first { $0.name == "rangeRequest" }?.evidence.contains("Content-Range: bytes 95904-99999/100000") == true)
        #expect(result.urlSession.contains("resumes from the resume data's offset"))
    }

    @Test(arguments: [
        ("ignoreRange", "rangeRequest", "does not answer Range"), ("wrongRange", "rangeRequest", "does not answer Range"),
        ("lyingRange", "rangeRequest", "corrupt"), ("noValidators", "validator", "no ETag or Last-Modified"),
        ("weakEtag", "validator", "weak ETag"), ("changing", "stableValidator", "changes on every request"),
        ("ignoreIfRange", "ifRangeStale", "ignores If-Range"),
    ])
    func everyMisbehaviourGetsItsVerdict(mode: String, failedCheck: String, says: String) async throws {
        let base = try await TransferTarget.http()
        let result = try await verdict(base + "/bytes/100000?mode=\(mode)")
        #expect(!result.resumable, "\(mode)")
        #expect(result.checks.first { $0.name == failedCheck }?.passed == false, "\(mode): \(result.checks)")
        #expect(result.urlSession.contains(says), "\(mode): \(result.urlSession)")
    }
}

/// Upload trials of a 16 MiB file (large enough that the server's 104 arrives before a stop on
/// loopback) for every protocol, abort and drop in turn (a kill needs the executable: CLI tests).
@Suite(.serialized) struct UploadTrialTests {
    static let file: String = {
        let path = NSTemporaryDirectory() + "sonde-upload-\(getpid()).bin"
        var generator = SeededGenerator(seed: 5)
        let bytes = (0..<(16 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }()

    func uploads(_ url: String, _ proto: UploadProtocol, count: Int = 2, at offsets: [TrialPlan.Offset] = [.fraction(0.7)]) async throws -> [ResumeTrial] {
        let file = Self.file
        return try await offThread { () -> Result<[ResumeTrial], TaskError> in
            do throws(TaskError) {
                var options = UploadTrialOptions(filePath: file, uploadProtocol: proto,
                                                 workDirectory: NSTemporaryDirectory() + "sonde-uploads-\(UUID().uuidString)")
                options.kinds = [.clientAbort, .connectionDrop]
                options.interruptAt = offsets
                options.retry = RetryPolicy(backoff: BackoffPolicy(initialMs: 20, maxMs: 100, jitter: .none), maxRetries: 4)
                let runner = try UploadTrialRunner(url: url, settings: TransferSettings(), options: options, worker: nil, seed: 3)
                return .success((1...count).map { runner.runTrial(number: $0, shouldStop: { false }) })
            } catch {
                return .failure(error)
            }
        }.get()
    }

    @Test(arguments: [3, 5, 6, 8])
    func ietfUploadsResumeIntactAtEveryInteropVersion(version: Int) async throws {
        let uploads = try await TransferTarget.server.started()
        for trial in try await self.uploads(uploads + "/ietf", .ietf(version: version)) {
            #expect(trial.intact, "v\(version): \(trial.error?.message ?? "") \(trial.interruptions)")
            #expect(trial.protocol == "ietf-draft-v\(version)" && trial.direction == "upload")
            #expect(trial.verifiedBy == "Repr-Digest" && trial.expectedFrom == "file")
            #expect(trial.interruptions.count == 1 && trial.interruptions[0].answeredWith == "204", "v\(version): \(trial.interruptions)")
            #expect(trial.bytesTransferred - trial.bytesWasted == 16 << 20)
        }
    }

    @Test func tusUploadsResumeIntactAndAreVerifiedByAFollowUpGet() async throws {
        let uploads = try await TransferTarget.server.started()
        for trial in try await self.uploads(uploads + "/tus", .tus) {
            #expect(trial.intact, "\(trial.error?.message ?? "") \(trial.interruptions)")
            #expect(trial.interruptions.first?.answeredWith == "200")
            #expect(trial.verifiedBy == "Repr-Digest" || trial.verifiedBy == "GET")
        }
    }

    @Test func aServerDropAndAnAppendLimitAreHandledByTheProtocol() async throws {
        let uploads = try await TransferTarget.server.started()
        let dropped = try await self.uploads(uploads + "/ietf?dropAt=9000000", .ietf(version: 8), count: 1, at: [.fraction(0.2)])
        #expect(dropped[0].intact, "\(dropped[0].error?.message ?? "")")
        #expect(dropped[0].interruptions.contains { $0.kind == .unplanned }, "\(dropped[0].interruptions)")
        let limited = try await self.uploads(uploads + "/ietf?maxAppend=4000000", .ietf(version: 6), count: 1, at: [.fraction(0.9)])
        #expect(limited[0].intact, "\(limited[0].error?.message ?? "") \(limited[0].interruptions)")
    }
}

extension TargetServer {
    /// The uploads endpoint of the shared in-process target.
    func started() async throws -> String { try await TransferTarget.started.value.uploads }
}
