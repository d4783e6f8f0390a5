import AssetLoading
import AssetStorage
import Foundation
import Logging
import NIOPosix

/// The one place that routes reads and writes to the right cache by ``StorageType``: a memory
/// cache per `AssetKind` and a shared `DiskCache`, with the `AssetLoader` that fills the
/// disk cache from the network.
///
/// Disk work runs on the manager's own I/O threads (an `NIOThreadPool`), never on Swift's
/// cooperative pool; memory hits return without leaving the caller's task. Call ``shutdown()``
/// when done: it flushes the disk cache's access records and stops the I/O threads.
public final class AssetsManager: Sendable {
    /// The caches, limits and loader settings the manager was opened with.
    public let configuration: Configuration
    /// The disk cache (for the loader, the utils and the CLI).
    public let diskCache: DiskCache
    /// The memory caches by kind. Values are bytes (`Data`) or decoded objects.
    public let memoryCaches: [AssetKind: MemoryCache<String, any Sendable>]
    /// The HTTP loader, storing through ``diskCache``.
    public let loader: AssetLoader
    /// The chunk store that ``VideoUtil`` keeps byte ranges in.
    public let chunkStore: ChunkStore
    let ioPool: NIOThreadPool

    /// Opens the disk cache (blocking: it builds its index) and creates the memory caches and
    /// the loader. The library logs through `logger`; it never bootstraps logging.
    public init(configuration: Configuration, logger: Logger = Logger(label: "AssetPipeline")) throws {
        self.configuration = configuration
        var caches: [AssetKind: MemoryCache<String, any Sendable>] = [:]
        for kind in AssetKind.allCases {
            caches[kind] = MemoryCache(policy: configuration.memory[kind] ?? .default, clock: configuration.disk.clock)
        }
        memoryCaches = caches
        diskCache = try DiskCache(configuration: configuration.disk)
        chunkStore = try ChunkStore(configuration: configuration.chunks)
        let pool = NIOThreadPool(numberOfThreads: max(1, configuration.ioThreads))
        pool.start()
        ioPool = pool
        loader = AssetLoader(diskCache: diskCache, configuration: configuration.loader, ioThreadPool: pool, logger: logger)
    }

    /// Opens the manager on its own I/O threads, so that the disk cache's index is built off
    /// the cooperative pool.
    public static func open(configuration: Configuration, logger: Logger = Logger(label: "AssetPipeline")) async throws -> AssetsManager {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        return try await pool.runIfActive { try AssetsManager(configuration: configuration, logger: logger) }
    }

    /// Loads `request` through the loader (which stores through the disk cache).
    ///
    /// A video downloaded whole into the disk cache replaces the chunks the chunk store held of
    /// it (``VideoUtil`` then reads the whole copy): an asset's bytes are kept in one place.
    public func load(_ request: AssetRequest) async throws -> AssetResponse {
        let response = try await loader.load(request)
        if request.kind == .video, response.outcome == .downloaded, case .cacheEntry = response.body {
            try await dropChunks(ofURL: request.address)
        }
        return response
    }

    /// Removes the chunks of `url` from the chunk store, after a whole copy was stored in the disk
    /// cache.
    func dropChunks(ofURL url: String) async throws {
        let store = chunkStore
        let key = AssetLoader.defaultCacheKey(for: url)
        try await runIO { _ = try store.removeResource(forKey: key) }
    }

    /// The memory cache for `kind`.
    public func memoryCache(for kind: AssetKind) -> MemoryCache<String, any Sendable> {
        memoryCaches[kind]!
    }

    /// Runs blocking work (file I/O) on the manager's I/O threads.
    public func runIO<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await ioPool.runIfActive(body)
    }

    // MARK: bytes by storage type

    /// Stores `data` for `key` where `storageType` says. `info` describes the entry on disk
    /// (its kind is taken from a `.hybrid` storage type).
    public func writeData(
        _ data: Data, forKey key: String, storageType: StorageType, info: DiskCache.EntryInfo = .init()
    ) async throws {
        switch storageType {
        case let .lru(kind):
            memoryCache(for: kind).set(data, forKey: key, cost: data.count)
        case .disk:
            let disk = diskCache
            try await runIO { _ = try disk.store(data, forKey: key, info: info) }
        case let .hybrid(kind):
            var info = info
            info.kind = kind
            let disk = diskCache
            try await runIO { [info] in _ = try disk.store(data, forKey: key, info: info) }
            memoryCache(for: kind).set(data, forKey: key, cost: data.count)
        }
    }

    /// The bytes stored for `key`, or `nil`. A `.hybrid` read that finds the bytes on disk puts
    /// them in memory too.
    public func readData(forKey key: String, storageType: StorageType) async throws -> Data? {
        switch storageType {
        case let .lru(kind):
            return memoryCache(for: kind).value(forKey: key) as? Data
        case .disk:
            let disk = diskCache
            return try await runIO { try disk.data(forKey: key) }
        case let .hybrid(kind):
            let memory = memoryCache(for: kind)
            if let data = memory.value(forKey: key) as? Data { return data }
            let disk = diskCache
            guard let data = try await runIO({ try disk.data(forKey: key) }) else { return nil }
            memory.set(data, forKey: key, cost: data.count)
            return data
        }
    }

    /// Removes what is stored for `key` where `storageType` says (both caches for `.hybrid`).
    public func removeData(forKey key: String, storageType: StorageType) async throws {
        switch storageType {
        case let .lru(kind):
            memoryCache(for: kind).removeValue(forKey: key)
        case .disk:
            let disk = diskCache
            _ = try await runIO { try disk.remove(key: key) }
        case let .hybrid(kind):
            memoryCache(for: kind).removeValue(forKey: key)
            let disk = diskCache
            _ = try await runIO { try disk.remove(key: key) }
        }
    }

    // MARK: decoded objects in memory

    /// A decoded object (a bitmap, a parsed animation) from `kind`'s memory cache.
    public func object<T: Sendable>(_ type: T.Type, forKey key: String, kind: AssetKind) -> T? {
        memoryCache(for: kind).value(forKey: key) as? T
    }

    /// Keeps a decoded object in `kind`'s memory cache; `cost` is its memory in bytes. Returns
    /// false when it is larger than the whole cache (then it is not kept).
    @discardableResult
    public func setObject<T: Sendable>(_ value: T, forKey key: String, kind: AssetKind, cost: Int) -> Bool {
        memoryCache(for: kind).set(value, forKey: key, cost: cost)
    }

    // MARK: usage

    /// Bytes held by all memory caches (the sum of their entries' costs).
    public var currentMemoryUsage: Int { memoryCaches.values.reduce(0) { $0 + $1.totalCost } }
    /// The sum of the memory caches' cost limits.
    public var memoryCapacity: Int {
        memoryCaches.values.reduce(0) { sum, cache in
            let limit = cache.policy.maxSize
            return sum > Int.max - limit ? Int.max : sum + limit
        }
    }
    /// Bytes of data in the disk cache.
    public var currentDiskUsage: Int64 { diskCache.totalBytes }
    /// The disk cache's byte limit.
    public var diskCapacity: Int64 { diskCache.configuration.maxBytes }

    /// Under memory pressure: trims every memory cache to `fraction` (0...1) of its current cost.
    public func trimMemory(toFraction fraction: Double) {
        let f = min(max(fraction, 0), 1)
        for cache in memoryCaches.values {
            cache.trim(toCost: Int(Double(cache.totalCost) * f))
        }
    }

    /// Stops the loader (after its background refreshes), flushes the disk cache's access
    /// records, closes it and stops the I/O threads.
    public func shutdown() async throws {
        try await loader.shutdown()
        let (disk, chunks) = (diskCache, chunkStore)
        try await runIO {
            disk.close()
            chunks.close()
        }
        try await ioPool.shutdownGracefully()
    }
}
