#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// Retries with exponential backoff and jitter, for connection failures, bodies cut short, 408, 429
    /// and 5xx; never for other statuses.
    public struct RetryPolicy: Sendable, Hashable {
        /// Exchanges made at most, the first included; 1 disables retries. Default 3.
        public var maxAttempts: Int
        /// The delay before the first retry. Default 0.2 seconds.
        public var baseDelay: Duration
        /// The factor between consecutive delays. Default 2.
        public var multiplier: Double
        /// The longest computed delay. Default 10 seconds.
        public var maxDelay: Duration
        /// The fraction of each computed delay that is random: a delay `d` becomes a value in
        /// `d * (1 - jitter) ... d`. Default 0.5.
        public var jitter: Double
        /// The longest wait a `Retry-After` field is honoured with; a longer one is cut to this.
        /// Default 30 seconds.
        public var maxRetryAfter: Duration

        /// Creates a policy; every parameter defaults to the value documented on its property.
        public init(
            maxAttempts: Int = 3,
            baseDelay: Duration = .milliseconds(200),
            multiplier: Double = 2,
            maxDelay: Duration = .seconds(10),
            jitter: Double = 0.5,
            maxRetryAfter: Duration = .seconds(30)
        ) {
            self.maxAttempts = maxAttempts
            self.baseDelay = baseDelay
            self.multiplier = multiplier
            self.maxDelay = maxDelay
            self.jitter = jitter
            self.maxRetryAfter = maxRetryAfter
        }

        /// No retries.
        public static let none = RetryPolicy(maxAttempts: 1)

        /// The wait before retry number `retry` (1 for the first retry): the origin's `Retry-After`
        /// capped at ``maxRetryAfter`` when given, else `baseDelay * multiplier^(retry-1)` capped at
        /// ``maxDelay`` with jitter. `random` is a value in `0...1`.
        public func delay(beforeRetry retry: Int, retryAfter: Duration?, random: Double = Double.random(in: 0...1)) -> Duration {
            if let retryAfter {
                return min(max(retryAfter, .zero), self.maxRetryAfter)
            }
            let cap = Self.seconds(self.maxDelay)
            var capped = Self.seconds(self.baseDelay)
            for _ in 1..<max(1, retry) where capped < cap {
                capped *= self.multiplier
            }
            capped = min(capped, cap)
            let jitter = min(max(self.jitter, 0), 1)
            let value = capped * (1 - jitter * min(max(random, 0), 1))
            return .nanoseconds(Int64(value * 1e9))
        }

        /// Parses a `Retry-After` value: delay-seconds or an HTTP date (relative to `now`).
        public static func retryAfter(_ value: String?, now: Date) -> Duration? {
            guard let value = value.map(HeaderFields.trimmed), !value.isEmpty else { return nil }
            if let seconds = CacheControl.deltaSeconds(value) {
                return .seconds(seconds)
            }
            guard let date = HTTPDate.parse(value, now: now) else { return nil }
            // a date centuries ahead would overflow nanoseconds: bounded like delta-seconds
            let interval = min(max(0, date.timeIntervalSince(now)), Double(CacheControl.maximumDeltaSeconds))
            return .milliseconds(Int64(interval * 1000))
        }

        static func seconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }
}
