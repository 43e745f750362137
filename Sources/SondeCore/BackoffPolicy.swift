/// Exponential backoff with jitter, as a well-built client reconnects or retries: the delay
/// before retry n (n = 1 after the first failure) is `initial × multiplier^(n-1)`, capped at
/// `max`, then jittered:
/// - `full`: uniform in [0, capped] (AWS's "full jitter");
/// - `equal`: capped/2 + uniform in [0, capped/2];
/// - `none`: exactly capped.
/// Shared by the WebSocket soak (reconnects) and the transfer trials (retries).
public struct BackoffPolicy: Sendable, Equatable {
    public enum Jitter: String, Sendable, CaseIterable, ModelValue {
        case full, equal, none
    }

    /// First delay, milliseconds (> 0).
    public var initialMs: Double
    /// Largest delay before jitter, milliseconds (≥ initialMs).
    public var maxMs: Double
    /// Growth per failure (≥ 1).
    public var multiplier: Double
    public var jitter: Jitter

    public init(initialMs: Double = 500, maxMs: Double = 30_000, multiplier: Double = 2, jitter: Jitter = .full) {
        self.initialMs = initialMs
        self.maxMs = maxMs
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The longest delay accepted (ms): a day, so that no delay converted to µs or ns can overflow.
    public static let maxDelayMs: Double = 86_400_000

    /// Why a policy is unusable, in words (with the bound that was passed), or nil when it is fine.
    public var problem: SettingProblem? {
        if !(initialMs > 0) || !initialMs.isFinite { return SettingProblem(key: "backoff-initial", "the initial backoff must be a positive duration") }
        if initialMs > Self.maxDelayMs { return SettingProblem(key: "backoff-initial", "the initial backoff must be at most 24 hours (24h)") }
        if !(maxMs >= initialMs) || !maxMs.isFinite { return SettingProblem(key: "backoff-max", "the maximum backoff must be at least the initial backoff") }
        if !(multiplier >= 1) || !multiplier.isFinite { return SettingProblem(key: "backoff-multiplier", "the backoff multiplier must be at least 1") }
        if maxMs > Self.maxDelayMs { return SettingProblem(key: "backoff-max", "the maximum backoff must be at most 24 hours (24h)") }
        if multiplier > 1000 { return SettingProblem(key: "backoff-multiplier", "the backoff multiplier must be at most 1000") }
        return nil
    }

    /// The delay before retry `failure` (1-based) before jitter, milliseconds.
    public func cappedDelayMs(failure: Int) -> Double {
        let exponent = Double(max(0, failure - 1))
        // Past ~1000 doublings the power overflows to +inf; the cap handles it.
        let grown = initialMs * pow(multiplier, min(exponent, 1024))
        return min(maxMs, grown.isFinite ? grown : maxMs)
    }

    /// The range a jittered delay for retry `failure` falls in, milliseconds.
    public func bounds(failure: Int) -> ClosedRange<Double> {
        let capped = cappedDelayMs(failure: failure)
        switch jitter {
        case .full: return 0...capped
        case .equal: return (capped / 2)...capped
        case .none: return capped...capped
        }
    }

    /// A jittered delay for retry `failure`, milliseconds, drawn from `generator`.
    public func delayMs(failure: Int, using generator: inout some RandomNumberGenerator) -> Double {
        let range = bounds(failure: failure)
        guard range.upperBound > range.lowerBound else { return range.lowerBound }
        return Double.random(in: range, using: &generator)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
