import AssetLoading
import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The path both utils take from a URL to a memoized value: a synchronous memory hit, else one
/// shared load per key (bytes through the loader, then the util's own decode or parse), the bytes'
/// disk entry dropped when they turn out bad, and the value memoized with its cost.
final class MemoizedLoader<Value: Sendable>: Sendable {
    /// One request as the util resolved it.
    struct Request: Sendable {
        var url: URL
        var memoryKey: String
        var kind: AssetKind
        var strategy: CacheStrategy
        var cacheKey: String?
        var keepInMemory: Bool
    }

    /// What turns bytes into a value, what the value costs, and which errors mean bad bytes.
    struct Reader: Sendable {
        var read: @Sendable (Data) async throws -> Value
        var cost: @Sendable (Value) -> Int
        var isBadBytes: @Sendable (any Error) -> Bool
    }

    struct WorkKey: Hashable, Sendable {
        var memoryKey: String
        var strategy: CacheStrategy
    }

    /// A shared load's value, and whether it was put in memory already.
    struct Loaded: Sendable {
        var value: Value
        var isStored: Bool
    }

    let manager: AssetsManager
    /// The kind's memory cache, looked up once.
    let memory: MemoryCache<String, any Sendable>
    let work = TaskCoalescer<WorkKey, Loaded>()

    init(manager: AssetsManager, kind: AssetKind) {
        self.manager = manager
        self.memory = manager.memoryCache(for: kind)
    }

    /// The memoized value for `key`, unless `strategy` forbids answering from memory.
    @inline(__always)
    func cached(_ key: String, strategy: CacheStrategy) -> Value? {
        strategy == .networkOnly ? nil : memory.object(Value.self, forKey: key)
    }

    /// A miss: joins or starts the shared load of the request's key; a caller that joined a load
    /// that did not memoize memoizes the value itself when it asked to.
    func load(_ request: Request, with reader: Reader) async throws -> Value {
        let loaded = try await work.value(forKey: WorkKey(memoryKey: request.memoryKey, strategy: request.strategy)) {
            try await self.sharedLoad(request, with: reader)
        }
        if request.keepInMemory, !loaded.isStored {
            memory.set(loaded.value, forKey: request.memoryKey, cost: reader.cost(loaded.value))
        }
        return loaded.value
    }

    /// The shared work of one key: load the bytes, read them, keep the value.
    private func sharedLoad(_ request: Request, with reader: Reader) async throws -> Loaded {
        // A load that finished just before this one started may have filled memory.
        if let hit = cached(request.memoryKey, strategy: request.strategy) { return Loaded(value: hit, isStored: true) }
        let (response, data) = try await manager.sourceBytes(for: AssetRequest(
            url: request.url, kind: request.kind, cacheKey: request.cacheKey, strategy: request.strategy))
        let value: Value
        do {
            value = try await reader.read(data)
        } catch where reader.isBadBytes(error) {
            await manager.discardStoredBody(of: response)
            throw error
        }
        guard request.keepInMemory else { return Loaded(value: value, isStored: false) }
        memory.set(value, forKey: request.memoryKey, cost: reader.cost(value))
        return Loaded(value: value, isStored: true)
    }
}
