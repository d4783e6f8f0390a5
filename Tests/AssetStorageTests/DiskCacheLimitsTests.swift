import AssetTestSupport
import Foundation
import Testing
@testable import AssetStorage

@Suite("DiskCache: limits, pruning and access records")
struct DiskCacheLimitsTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func byteLimitIsEnforcedOnWriteLeastRecentlyUsedFirst() throws {
        let dir = try TemporaryDirectory("limit")
        let clock = ManualClock(start: start)
        let cache = try DiskCache(configuration: .init(directory: dir.url, maxBytes: 10_000, clock: clock))
        for i in 0..<9 {
            try cache.store([UInt8](repeating: UInt8(i), count: 1000), forKey: "k\(i)")
            clock.advance(by: 1)
        }
        // Reading k0 and k1 makes them the most recently used.
        _ = try cache.data(forKey: "k0")
        clock.advance(by: 1)
        _ = try cache.data(forKey: "k1")
        clock.advance(by: 1)
        try cache.store([UInt8](repeating: 9, count: 2000), forKey: "k9")  // 11,000 bytes: over the limit
        let stats = cache.statistics
        #expect(stats.bytes <= 10_000)
        // Down to 90% of the limit: the two least recently used (k2, k3) went, not k0 or k1.
        #expect(stats.bytes == 9_000)
        #expect(stats.evictions == 2)
        #expect(Set(cache.keys) == Set(["k0", "k1", "k4", "k5", "k6", "k7", "k8", "k9"]))
        #expect(try cache.data(forKey: "k2") == nil)
        // The files went too.
        let reopened = try DiskCache(directory: dir.url)
        #expect(reopened.statistics.entries == 8 && reopened.totalBytes == 9_000)
    }

    @Test func countLimitIsEnforcedOnWrite() throws {
        let dir = try TemporaryDirectory("count")
        let clock = ManualClock(start: start)
        let cache = try DiskCache(configuration: .init(directory: dir.url, maxCount: 20, clock: clock))
        for i in 0..<50 {
            try cache.store([UInt8(i)], forKey: "k\(i)")
            clock.advance(by: 1)
            #expect(cache.statistics.entries <= 20)
        }
        #expect(cache.keys.contains("k49"))
        #expect(!cache.keys.contains("k0"))
    }

    @Test func anEntryLargerThanTheCacheIsRefused() throws {
        let dir = try TemporaryDirectory("huge")
        let cache = try DiskCache(configuration: .init(directory: dir.url, maxBytes: 100))
        try cache.store([UInt8](repeating: 1, count: 50), forKey: "small")
        let error = #expect(throws: StorageError.self) { try cache.store([UInt8](repeating: 1, count: 101), forKey: "big") }
        #expect(error?.code == .tooLarge)
        #expect(try cache.data(forKey: "small") != nil)
    }

    @Test func agedAndExpiredEntriesGoFirst() throws {
        let dir = try TemporaryDirectory("age")
        let clock = ManualClock(start: start)
        let cache = try DiskCache(configuration: .init(directory: dir.url, maxAge: 3600, clock: clock))
        try cache.store([1], forKey: "old")
        try cache.store([2], forKey: "expiring", info: .init(expirationDate: start.addingTimeInterval(60)))
        clock.advance(by: 120)
        try cache.store([3], forKey: "new")  // a write enforces the limits: "expiring" is past its date
        #expect(Set(cache.keys) == ["old", "new"])
        clock.advance(by: 3500)
        try cache.store([4], forKey: "newer")  // "old" is now 3620 s old
        #expect(Set(cache.keys) == ["new", "newer"])
        // A read never serves an entry past its age, even between sweeps.
        clock.advance(by: 3500)
        #expect(try cache.data(forKey: "new") == nil)
        #expect(try cache.data(forKey: "newer") != nil)
        #expect(Set(cache.keys) == ["newer"])
    }

    @Test func pruneRemovesExpiredThenLeastRecentlyUsed() throws {
        let dir = try TemporaryDirectory("prune")
        let clock = ManualClock(start: start)
        let cache = try DiskCache(configuration: .init(directory: dir.url, clock: clock))
        try cache.store([UInt8](repeating: 0, count: 100), forKey: "expired", info: .init(expirationDate: start.addingTimeInterval(10)))
        for i in 0..<5 {
            clock.advance(by: 1)
            try cache.store([UInt8](repeating: 0, count: 100), forKey: "k\(i)")
        }
        clock.advance(by: 1)
        _ = try cache.data(forKey: "k0")  // k0 is now the most recently used
        clock.advance(by: 100)
        let removed = try cache.prune(maxCount: 3)
        #expect(removed.entries == 3 && removed.bytes == 300)
        #expect(Set(cache.keys) == ["k0", "k3", "k4"])
        // Age counts from the store, not the last read: k0, k3 and k4 are 105, 102 and 101 s old.
        let byAge = try cache.prune(maxAge: 104)
        #expect(byAge.entries == 1 && Set(cache.keys) == ["k3", "k4"])
        let byAge2 = try cache.prune(maxAge: 101.5)
        #expect(byAge2.entries == 1 && Set(cache.keys) == ["k4"])
        let bySize = try cache.prune(maxBytes: 0)
        #expect(bySize.entries == 1 && cache.statistics.entries == 0)
    }

    @Test func aHitWritesNothingUntilTheBatchIsFlushed() throws {
        let dir = try TemporaryDirectory("touch")
        let clock = ManualClock(start: start)
        let cache = try DiskCache(configuration: .init(directory: dir.url, accessFlushInterval: 3600, accessFlushCount: 10, clock: clock))
        try cache.store([1, 2, 3], forKey: "k")
        let hash = CacheKeyHash.fileName(for: "k")
        let shard = dir.url.appendingPathComponent(String(hash.prefix(2)))
        let entryURL = shard.appendingPathComponent("\(hash).entry")
        let metaURL = shard.appendingPathComponent("\(hash).meta.json")
        let before = try Data(contentsOf: entryURL)
        let attributes = try FileManager.default.attributesOfItem(atPath: entryURL.path)
        for _ in 0..<9 {
            clock.advance(by: 5)
            #expect(try cache.bytes(forKey: "k") == [1, 2, 3])
        }
        // Nine hits: the entry file is the same file with the same bytes, and nothing else was written.
        #expect(try Data(contentsOf: entryURL) == before)
        let after = try FileManager.default.attributesOfItem(atPath: entryURL.path)
        #expect(after[.systemFileNumber] as? Int == attributes[.systemFileNumber] as? Int)
        #expect(after[.modificationDate] as? Date == attributes[.modificationDate] as? Date)
        #expect(!FileManager.default.fileExists(atPath: metaURL.path))
        #expect(try cache.metadata(forKey: "k")?.accessCount == 9)  // counted in memory
        clock.advance(by: 5)
        _ = try cache.bytes(forKey: "k")  // the tenth touch reaches the batch size
        let onDisk = try #require(CacheMetadata(jsonBytes: Array(try Data(contentsOf: metaURL))))
        #expect(onDisk.accessCount == 10)
        #expect(onDisk.lastAccessTime == start.addingTimeInterval(50))
        #expect(try Data(contentsOf: entryURL) == before)
    }

    @Test func closeFlushesPendingAccesses() throws {
        let dir = try TemporaryDirectory("close")
        let cache = try DiskCache(configuration: .init(directory: dir.url, accessFlushInterval: 3600))
        try cache.store([1], forKey: "k")
        for _ in 0..<3 { _ = try cache.data(forKey: "k") }
        cache.close()
        #expect(throws: StorageError.self) { try cache.data(forKey: "k") }
        let reopened = try DiskCache(directory: dir.url)
        #expect(try reopened.metadata(forKey: "k")?.accessCount == 3)
    }

    @Test func theRecorderFlushesOnItsTimer() async throws {
        let dir = try TemporaryDirectory("timer")
        let cache = try DiskCache(configuration: .init(directory: dir.url, accessFlushInterval: 0.05))
        try cache.store([1], forKey: "k")
        _ = try cache.data(forKey: "k")
        let hash = CacheKeyHash.fileName(for: "k")
        let shard = dir.url.appendingPathComponent(String(hash.prefix(2)))
        let metaPath = shard.appendingPathComponent("\(hash).meta.json")
        @Sendable func count() -> Int { CacheMetadata(jsonBytes: Array((try? Data(contentsOf: metaPath)) ?? Data()))?.accessCount ?? 0 }
        // awaits the file the recorder's thread renames into place (bounded at 5 s)
        let flushed = await FileEvents.waitForFile(named: "\(hash).meta.json", in: shard.path, timeout: 5) { count() == 1 }
        #expect(flushed && count() == 1)
    }
}
