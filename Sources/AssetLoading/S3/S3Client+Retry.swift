extension S3Client {
    /// Runs `operation` until it succeeds or fails for good, under ``Configuration-swift.struct/retry``:
    /// connection failures, cut bodies, 408, 429 and 5xx (`SlowDown`, `InternalError`) are retried
    /// after the policy's backoff with jitter, or the `Retry-After` asked for.
    func withRetries<T: Sendable>(_ operation: () async throws(LoaderError) -> T) async throws(LoaderError) -> T {
        let policy = self.configuration.retry
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                guard error.isRetryable, attempt < max(1, policy.maxAttempts), !Task.isCancelled else { throw error }
                let delay = policy.delay(beforeRetry: attempt, retryAfter: error.retryAfter)
                self.logger.debug("s3 retrying", metadata: ["attempt": "\(attempt)", "error": "\(error.shortDescription)"])
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
