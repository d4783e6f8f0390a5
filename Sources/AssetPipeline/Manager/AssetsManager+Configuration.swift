import AssetLoading
import AssetStorage
import Foundation

extension AssetsManager {
    /// The caches an ``AssetsManager`` owns and their limits.
    public struct Configuration: Sendable {
        /// The disk cache (directory, byte/count/age limits).
        public var disk: DiskCache.Configuration
        /// The memory cache of each kind. Default: a 256 MiB budget split as image 128 MiB
        /// (4,096 entries), lottie 64 MiB (4,096), video 32 MiB (1,024), raw 32 MiB (10,000), all LRU.
        public var memory: [AssetKind: CachePolicy]
        /// Threads that run blocking file I/O, off Swift's cooperative pool. Default: 4.
        public var ioThreads: Int
        /// The HTTP loader (timeouts, body limits per kind, retries, redirects). Its I/O runs on
        /// the manager's threads.
        public var loader: AssetLoader.Configuration
        /// The chunk store for byte ranges of large media (video). Default: `chunks/` inside the
        /// disk cache's directory, 1 MiB chunks, a 1 GiB budget.
        public var chunks: ChunkStore.Configuration

        /// Creates a configuration from the disk cache's; the chunk store defaults to `chunks/` inside the
        /// disk cache's directory, with the disk cache's clock, and the rest to the values documented on
        /// the properties.
        public init(
            disk: DiskCache.Configuration,
            memory: [AssetKind: CachePolicy] = Configuration.defaultMemory(budget: 256 << 20),
            ioThreads: Int = 4,
            loader: AssetLoader.Configuration = AssetLoader.Configuration(),
            chunks: ChunkStore.Configuration? = nil
        ) {
            self.disk = disk
            self.memory = memory
            self.ioThreads = ioThreads
            self.loader = loader
            self.chunks = chunks ?? ChunkStore.Configuration(
                directory: ChunkStore.Configuration.defaultDirectory(cacheDirectory: disk.directory), clock: disk.clock)
        }

        /// The second-level cache tier the loader asks instead of the origin (`--via`); nil for none.
        /// The same as `loader.tier`.
        public var tier: CacheTier? {
            get { loader.tier }
            set { loader.tier = newValue }
        }

        /// A configuration for the cache in `directory` with default limits.
        public init(directory: URL = DiskCache.Configuration.defaultDirectory()) {
            self.init(disk: DiskCache.Configuration(directory: directory))
        }

        /// Splits one memory budget between the kinds: image 1/2, lottie 1/4, video 1/8, raw 1/8.
        public static func defaultMemory(budget: Int) -> [AssetKind: CachePolicy] {
            [
                .image: CachePolicy(maxSize: budget / 2, maxCount: 4_096),
                .lottie: CachePolicy(maxSize: budget / 4, maxCount: 4_096),
                .video: CachePolicy(maxSize: budget / 8, maxCount: 1_024),
                .raw: CachePolicy(maxSize: budget / 8, maxCount: 10_000),
            ]
        }
    }
}
