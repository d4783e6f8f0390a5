import Foundation

extension ChunkStore {
    /// Where a chunk store lives and how much it may hold.
    public struct Configuration: Sendable {
        /// The chunk directory; created when missing. Default: ``defaultDirectory(cacheDirectory:)``
        /// of the disk cache's default directory.
        public var directory: URL
        /// The size of every chunk but a resource's last, in bytes. Every process sharing a
        /// directory must use the same size: records of another size are dropped at open.
        /// Default: 1 MiB.
        public var chunkSize: Int
        /// The most bytes of chunk data kept, all resources together; enforced on every write by
        /// evicting the least recently used chunks (never one being read). Default: 1 GiB.
        public var maxBytes: Int64
        /// The wall clock for access times and record dates. Default: ``SystemClock``.
        public var clock: any CacheClock

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            directory: URL = ChunkStore.Configuration.defaultDirectory(),
            chunkSize: Int = 1 << 20,
            maxBytes: Int64 = 1 << 30,
            clock: any CacheClock = SystemClock()
        ) {
            self.directory = directory
            self.chunkSize = chunkSize
            self.maxBytes = maxBytes
            self.clock = clock
        }

        /// `chunks/` inside a cache directory (by default the disk cache's default directory).
        public static func defaultDirectory(
            cacheDirectory: URL = DiskCache.Configuration.defaultDirectory()
        ) -> URL {
            cacheDirectory.appendingPathComponent("chunks", isDirectory: true)
        }
    }
}
