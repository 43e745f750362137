import Foundation
import SondeCore

/// The retry policy downloads and uploads share: exponential backoff with jitter
/// (`BackoffPolicy`), Retry-After honoured on 429 and 503, only retryable failures retried
/// (timeouts, resets, connections that ended early or never opened, 5xx, 429; never another
/// 4xx), at most `maxRetries` per trial.
public struct RetryPolicy: Sendable, Equatable {
    public var backoff: BackoffPolicy
    public var maxRetries: Int
    /// The longest Retry-After that is honoured as sent, milliseconds; a longer one is capped here.
    public var maxRetryAfterMs: Double

    public init(backoff: BackoffPolicy = BackoffPolicy(initialMs: 200, maxMs: 10_000, multiplier: 2, jitter: .full),
                maxRetries: Int = 5, maxRetryAfterMs: Double = 60_000) {
        self.backoff = backoff
        self.maxRetries = maxRetries
        self.maxRetryAfterMs = maxRetryAfterMs
    }

    /// Whether a failure with this error and/or HTTP status is worth another attempt.
    public static func isRetryable(error: ErrorCode?, status: Int?) -> Bool {
        if let status, status >= 400 {
            return status == 429 || status >= 500
        }
        guard let error else { return false }
        switch error {
        case .timedOut, .connectTimeout, .connectionReset, .connectionClosed, .truncatedBody, .emptyReply,
             .connectionRefused, .hostUnreachable:
            return true
        default:
            return false
        }
    }

    /// The delay before retry `failure` (1-based), milliseconds: the server's Retry-After on a
    /// 429 or 503 when it gave a usable one (capped at `maxRetryAfterMs`), else the backoff.
    public func delayMs(failure: Int, status: Int?, retryAfter: String?, now: Date = Date(),
                        using generator: inout some RandomNumberGenerator) -> Double {
        if status == 429 || status == 503, let retryAfter, let seconds = Self.seconds(retryAfter: retryAfter, now: now) {
            return min(maxRetryAfterMs, seconds * 1000)
        }
        return backoff.delayMs(failure: failure, using: &generator)
    }

    /// Retry-After (`RetryAfter`) in seconds from `now`; nil when unreadable.
    public static func seconds(retryAfter: String, now: Date) -> Double? {
        RetryAfter(parsing: retryAfter)?.delaySeconds(now: now)
    }
}
