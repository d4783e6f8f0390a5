import AssetStorage
import Metrics

extension AssetLoader {
    /// How a loader connects, bounds bodies, retries and judges freshness.
    public struct Configuration: Sendable {
        /// The longest wait for a connection. Default 10 seconds.
        public var connectTimeout: Duration
        /// The longest wait for the next bytes of a response (idle read). Default 30 seconds.
        public var readTimeout: Duration
        /// The longest one exchange may take, head and whole body. Default 300 seconds.
        public var totalTimeout: Duration
        /// The largest body accepted per kind, in bytes; a larger one fails with ``LoaderError/tooLarge``
        /// and stores nothing. Default: image 64 MiB, lottie 32 MiB, video 1 GiB, raw 64 MiB.
        public var maxBodySize: [AssetKind: Int64]
        /// The most redirects followed per exchange; loops are detected. Default 5.
        public var redirectLimit: Int
        /// When and how failed exchanges are retried. Default ``RetryPolicy/init(maxAttempts:baseDelay:multiplier:maxDelay:jitter:maxRetryAfter:)``.
        public var retry: RetryPolicy
        /// The HTTP/1.1 connections per host the client keeps (async-http-client's default is 8).
        /// Default 32.
        public var maxConnectionsPerHost: Int
        /// The freshness rules (private cache by default).
        public var freshness: FreshnessPolicy.Configuration
        /// The clock for request and response times and freshness. Default `SystemClock`.
        public var clock: any CacheClock
        /// Where the counters go; nil for the process-wide `MetricsSystem.factory`. Default nil.
        public var metricsFactory: (any MetricsFactory)?
        /// Threads of the loader's own I/O pool when none is passed to the loader. Default 2.
        public var ioThreads: Int
        /// Decides where a downloaded response may be kept, from the request, the status and the response
        /// fields; consulted only for responses HTTP caching allows to store (others are ``StoragePolicy/notAllowed``).
        /// Default nil: ``StoragePolicy/allowed``.
        public var storagePolicy: (@Sendable (AssetRequest, Int, HeaderFields) -> StoragePolicy)?
        /// Which destinations may be connected to, checked before every connection and redirect; nil
        /// for any (a library fetching URLs its own code chose). Set it when the URLs come from
        /// untrusted clients (`assetpipe serve`). Default nil.
        public var destinationPolicy: DestinationPolicy?
        /// A second-level cache tier asked instead of the origin; nil for none. Default nil.
        public var tier: CacheTier?
        /// The object store `s3://bucket/key` URLs are loaded from (signed requests, through the same
        /// cache, freshness, coalescing and limits as http); nil for none, and an `s3://` load fails
        /// with ``LoaderError/unsupportedScheme``. Default nil.
        public var s3: S3Client.Configuration?

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            connectTimeout: Duration = .seconds(10),
            readTimeout: Duration = .seconds(30),
            totalTimeout: Duration = .seconds(300),
            maxBodySize: [AssetKind: Int64] = Configuration.defaultMaxBodySize,
            redirectLimit: Int = 5,
            retry: RetryPolicy = RetryPolicy(),
            maxConnectionsPerHost: Int = 32,
            freshness: FreshnessPolicy.Configuration = FreshnessPolicy.Configuration(),
            clock: any CacheClock = SystemClock(),
            metricsFactory: (any MetricsFactory)? = nil,
            ioThreads: Int = 2,
            storagePolicy: (@Sendable (AssetRequest, Int, HeaderFields) -> StoragePolicy)? = nil,
            destinationPolicy: DestinationPolicy? = nil,
            tier: CacheTier? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.totalTimeout = totalTimeout
            self.maxBodySize = maxBodySize
            self.redirectLimit = redirectLimit
            self.retry = retry
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.freshness = freshness
            self.clock = clock
            self.metricsFactory = metricsFactory
            self.ioThreads = ioThreads
            self.storagePolicy = storagePolicy
            self.destinationPolicy = destinationPolicy
            self.tier = tier
        }

        /// The default maximum body sizes.
        public static let defaultMaxBodySize: [AssetKind: Int64] = [
            .image: 64 << 20, .lottie: 32 << 20, .video: 1 << 30, .raw: 64 << 20,
        ]

        /// The largest body accepted for `kind` (64 MiB when the table has no entry).
        public func maxBodySize(for kind: AssetKind) -> Int64 {
            self.maxBodySize[kind] ?? (64 << 20)
        }
    }
}
