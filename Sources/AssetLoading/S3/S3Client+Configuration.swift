import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client {
    /// Where the objects are and who asks for them.
    public struct Configuration: Sendable {
        /// How a bucket is named in a request.
        public enum Addressing: String, Sendable, Hashable {
            /// `http://endpoint/bucket/key`: what radosgw, MinIO and most S3-compatible stores take.
            case path
            /// `https://bucket.endpoint/key`: AWS's own form.
            case virtualHosted = "virtual"
        }

        /// The endpoint's scheme, host and port: `http://127.0.0.1:7480`, `https://s3.eu-west-1.amazonaws.com`.
        public var endpoint: String
        /// The signing region. Default `us-east-1`.
        public var region: String
        /// The key and secret requests are signed with.
        public var credentials: S3Credentials
        /// Path-style or virtual-hosted. Default `path`.
        public var addressing: Addressing
        /// The part size of a multipart upload, at least 5 MiB (S3's minimum but for the last part).
        /// Default 8 MiB.
        public var partSize: Int
        /// A ``S3Client/put(_:body:contentType:deadline:)`` body this large or larger goes as a multipart
        /// upload. Default 16 MiB.
        public var multipartThreshold: Int
        /// The retries of the client's own operations (`PUT`, `HEAD`, the parts of an upload). Default
        /// ``AssetLoader/RetryPolicy/init(maxAttempts:baseDelay:multiplier:maxDelay:jitter:maxRetryAfter:)``.
        public var retry: AssetLoader.RetryPolicy
        /// The clock requests are signed by (`X-Amz-Date`). Default `SystemClock`.
        public var clock: any CacheClock
        /// Whether a request the store refuses because the clock is off (`RequestTimeTooSkewed`,
        /// `RequestExpired`, `RequestInTheFuture`, or another 401/403 while the store's `Date` is
        /// more than 4 minutes from the clock) is signed again, once, by the store's `Date`, and the
        /// offset kept for the requests that follow, as the AWS SDKs (Java, Go, JavaScript) do: a
        /// host whose clock drifted keeps working instead of failing every request. A wrong secret
        /// with a right clock is never retried. Default true.
        public var correctsClockSkew: Bool
        /// The offset learned from the store's `Date`, shared by the copies of this configuration.
        let skew = ClockSkew()

        /// Creates a configuration; the parameters not given default to the values documented on
        /// their properties.
        public init(
            endpoint: String, region: String = "us-east-1", credentials: S3Credentials, addressing: Addressing = .path,
            partSize: Int = 8 * 1024 * 1024, multipartThreshold: Int = 16 * 1024 * 1024,
            retry: AssetLoader.RetryPolicy = AssetLoader.RetryPolicy(), clock: any CacheClock = SystemClock(),
            correctsClockSkew: Bool = true
        ) {
            self.clock = clock
            self.correctsClockSkew = correctsClockSkew
            self.endpoint = endpoint
            self.region = region
            self.credentials = credentials
            self.addressing = addressing
            self.partSize = max(partSize, 5 * 1024 * 1024)
            self.multipartThreshold = multipartThreshold
            self.retry = retry
        }

        /// The time a request is signed with: the clock, corrected by the offset learned from the store.
        var signingDate: Date { self.clock.now.addingTimeInterval(self.skew.offset) }
    }
}
