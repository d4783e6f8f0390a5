import Foundation

extension DiskCache {
    /// How a disk cache is laid out and limited.
    public struct Configuration: Sendable {
        /// The cache directory; created when missing.
        public var directory: URL
        /// The most bytes of entry data kept. Default: 1 GiB.
        public var maxBytes: Int64
        /// The most entries kept. Default: 1,000,000.
        public var maxCount: Int
        /// Entries older than this (since they were stored) are dropped first. Default: `nil`,
        /// no age limit.
        public var maxAge: TimeInterval?
        /// Touches are written to the metadata files at least this often. Default: 5 seconds.
        public var accessFlushInterval: TimeInterval
        /// ... or as soon as this many touches are pending (by the read that reaches the count,
        /// on its own thread). Default: 1,024.
        public var accessFlushCount: Int
        /// When a write must reach the disk. Default: ``Durability/processCrash``.
        public var durability: Durability
        /// The wall clock for dates and ages. Default: ``SystemClock``.
        public var clock: any CacheClock

        /// What a finished write survives.
        public enum Durability: Sendable {
            /// A crash of any process (the rename is atomic), but maybe not a power loss: no fsync.
            case processCrash
            /// Also a power loss: data and metadata are fsynced before they are renamed in place.
            case powerLoss
        }

        /// Creates a configuration for `directory`; the other parameters default to the values
        /// documented on the properties.
        public init(
            directory: URL,
            maxBytes: Int64 = 1 << 30,
            maxCount: Int = 1_000_000,
            maxAge: TimeInterval? = nil,
            accessFlushInterval: TimeInterval = 5,
            accessFlushCount: Int = 1_024,
            durability: Durability = .processCrash,
            clock: any CacheClock = SystemClock()
        ) {
            self.directory = directory
            self.maxBytes = maxBytes
            self.maxCount = maxCount
            self.maxAge = maxAge
            self.accessFlushInterval = accessFlushInterval
            self.accessFlushCount = accessFlushCount
            self.durability = durability
            self.clock = clock
        }

        /// The default cache directory: `$ASSETPIPE_CACHE_DIR`, else `$XDG_CACHE_HOME/assetpipe`,
        /// else `~/.cache/assetpipe`.
        public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
            if let dir = environment["ASSETPIPE_CACHE_DIR"], !dir.isEmpty {
                return URL(fileURLWithPath: dir, isDirectory: true)
            }
            if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
                return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("assetpipe", isDirectory: true)
            }
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            return URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".cache", isDirectory: true)
                .appendingPathComponent("assetpipe", isDirectory: true)
        }
    }
}
