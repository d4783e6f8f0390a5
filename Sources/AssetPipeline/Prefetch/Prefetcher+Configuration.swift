import AssetLoading

extension Prefetcher {
    /// How a prefetch run schedules and checks its items.
    public struct Configuration: Sendable {
        /// Items in flight at once, overall. Default 8.
        public var concurrency: Int
        /// Items in flight at once per origin (scheme, host and port). Default 4.
        public var perHost: Int
        /// Request starts per second at most; nil for no limit. Default nil.
        public var rate: Double?
        /// How each URL is loaded. Default `CacheStrategy.useProtocolCachePolicy`.
        public var strategy: CacheStrategy
        /// Whether to check what was fetched: images decoded whole, Lottie parsed, the first
        /// ``videoPrefix`` bytes of a video fetched into the chunk store. An item that fails is
        /// reported failed and its bytes are removed from the cache. Default false.
        public var validate: Bool
        /// With ``validate``, how many first bytes of a video are fetched. Default 2 MiB.
        public var videoPrefix: Int64
        /// How many distinct keys the duplicate filter holds before it starts again. Default 1,000,000.
        public var duplicateWindow: Int
        /// Warm the manager's cache tier only: each URL is fetched through the tier (whose node that
        /// owns it fetches and keeps it) and nothing is stored here. Needs a tier in the loader's
        /// configuration; ``validate`` does not apply. Default false.
        public var warmsTierOnly: Bool

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            concurrency: Int = 8,
            perHost: Int = 4,
            rate: Double? = nil,
            strategy: CacheStrategy = .useProtocolCachePolicy,
            validate: Bool = false,
            videoPrefix: Int64 = 2 << 20,
            duplicateWindow: Int = 1_000_000,
            warmsTierOnly: Bool = false
        ) {
            self.concurrency = concurrency
            self.perHost = perHost
            self.rate = rate
            self.strategy = strategy
            self.validate = validate
            self.videoPrefix = videoPrefix
            self.duplicateWindow = duplicateWindow
            self.warmsTierOnly = warmsTierOnly
        }
    }
}
