#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// Exchanges until one succeeds or fails for good: retryable failures (connection, cut bodies, 408,
    /// 429, 5xx) are retried after the ``RetryPolicy``'s delay, honouring `Retry-After`.
    func fetch(_ target: LoadTarget, conditional: ConditionalHeaders?, start: Date) async throws -> Exchanged {
        let retry = self.configuration.retry
        var attempt = 1
        while true {
            do {
                return try await self.exchange(target, conditional: conditional, attempt: attempt, start: start)
            } catch {
                let failure = LoaderError.mapping(error)
                guard failure.isRetryable, attempt < max(1, retry.maxAttempts), !Task.isCancelled else {
                    throw failure
                }
                let delay = retry.delay(beforeRetry: attempt, retryAfter: failure.retryAfter)
                self.logger.debug(
                    "retrying",
                    metadata: [
                        "url": "\(target.request.address)", "attempt": "\(attempt)", "error": "\(failure.shortDescription)",
                        "delay": "\(delay)",
                    ])
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw LoaderError.cancelled.with(underlying: error)
                }
                attempt += 1
            }
        }
    }
}
