import AssetStorage
import Foundation
import Testing

@Suite("MemoryCache operations")
struct MemoryCacheOperationsTests {
    @Test func expiryFollowsTheInjectedClock() {
        let clock = ManualClock()
        let c = MemoryCache<String, Int>(policy: CachePolicy(maxAge: 60), clock: clock)
        c.set(1, forKey: "a")
        clock.advance(by: 30)
        c.set(2, forKey: "b")
        #expect(c.value(forKey: "a") == 1)
        clock.advance(by: 29.5)
        #expect(c.value(forKey: "a") == 1)
        clock.advance(by: 0.5)  // a is exactly 60 s old: expired
        #expect(c.value(forKey: "a") == nil)
        #expect(c.count == 1)
        #expect(c.contains("b"))
        c.set(3, forKey: "b")  // an overwrite restarts the lifetime
        clock.advance(by: 59)
        #expect(c.value(forKey: "b") == 3)
        clock.advance(by: 1)
        #expect(!c.contains("b"))
        let stats = c.statistics
        #expect(stats.expirations == 1)
        #expect(stats.hits == 3)
        #expect(stats.misses == 1)
    }

    @Test(arguments: EvictionPolicy.allCases)
    func removeExpiredRemovesExactlyTheExpired(policy: EvictionPolicy) {
        let clock = ManualClock()
        let c = MemoryCache<Int, Int>(policy: CachePolicy(maxAge: 10, evictionPolicy: policy), clock: clock)
        for i in 0..<10 {
            c.set(i, forKey: i, cost: 1)
            clock.advance(by: 1)
        }
        c.set(100, forKey: 3, cost: 1)  // written again at t = 10
        clock.advance(by: 5)  // t = 15: keys written at t <= 5 have expired, except 3
        #expect(c.removeExpired() == 5)
        #expect(Set(c.keysInEvictionOrder) == [3, 6, 7, 8, 9])
        #expect(c.totalCost == 5)
        #expect(c.statistics.expirations == 5)
    }

    @Test func trimToCostAndCountEvictInPolicyOrder() {
        let c = MemoryCache<Int, Int>(policy: CachePolicy(maxSize: 1_000, maxCount: 100), clock: ManualClock())
        for i in 0..<10 { c.set(i, forKey: i, cost: 10 * (i + 1)) }  // costs 10...100, 550 in all
        _ = c.value(forKey: 0)  // LRU order: 1, 2, ..., 9, 0
        #expect(c.trim(toCost: 300) == 6)  // 1...6 go (20 + ... + 70 = 270): 280 left
        #expect(c.totalCost == 280)
        #expect(c.keysInEvictionOrder == [7, 8, 9, 0])
        #expect(c.trim(toCount: 2) == 2)
        #expect(c.keysInEvictionOrder == [9, 0])
        #expect(c.totalCost == 110)
        #expect(c.trim(toCost: 500) == 0)
        #expect(c.trim(toCost: -1) == 2)
        #expect(c.count == 0 && c.totalCost == 0)
        #expect(c.statistics.evictions == 10)
    }

    @Test func removeValueAndRemoveAll() {
        let c = MemoryCache<String, Int>(policy: CachePolicy(maxSize: 100, maxCount: 10), clock: ManualClock())
        c.set(1, forKey: "a", cost: 10)
        c.set(2, forKey: "b", cost: 20)
        c.set(3, forKey: "c", cost: 30)
        #expect(c.removeValue(forKey: "b") == 2)
        #expect(c.removeValue(forKey: "b") == nil)
        #expect(c.totalCost == 40)
        #expect(c.keysInEvictionOrder == ["a", "c"])
        c.set(4, forKey: "d", cost: 5)  // reuses b's slot
        #expect(c.keysInEvictionOrder == ["a", "c", "d"])
        #expect(c.totalCost == 45)
        _ = c.value(forKey: "a")
        c.removeAll()
        #expect(c.count == 0)
        #expect(c.totalCost == 0)
        #expect(c.value(forKey: "a") == nil)
        #expect(c.keysInEvictionOrder.isEmpty)
        c.set(5, forKey: "e", cost: 100)
        #expect(c["e"] == 5)
        let stats = c.statistics
        #expect(stats.evictions == 0)  // removals are not evictions
        #expect(stats.hits == 2 && stats.misses == 1)
    }

    @Test func statisticsCountHitsMissesAndSize() {
        let c = MemoryCache<Int, String>(policy: CachePolicy(maxSize: 1_000, maxCount: 2), clock: ManualClock())
        c.set("x", forKey: 1, cost: 7)
        c.set("y", forKey: 2, cost: 8)
        _ = c.value(forKey: 1)
        _ = c.value(forKey: 1)
        _ = c.value(forKey: 3)
        c.set("z", forKey: 3, cost: 9)  // evicts 2
        let stats = c.statistics
        #expect(stats == MemoryCache<Int, String>.Statistics(
            hits: 2, misses: 1, evictions: 1, expirations: 0,
            count: 2, totalCost: 16, costLimit: 1_000, countLimit: 2
        ))
        #expect(abs(stats.hitRate - 2.0 / 3.0) < 1e-12)
        c.resetStatistics()
        #expect(c.statistics.hits == 0 && c.statistics.count == 2)
    }

    @Test func presetsAreTheDocumentedNumbers() {
        #expect(CachePolicy.default == CachePolicy(maxAge: nil, maxSize: 64 << 20, maxCount: 10_000, evictionPolicy: .lru))
        #expect(CachePolicy.aggressive == CachePolicy(maxAge: nil, maxSize: 512 << 20, maxCount: 100_000, evictionPolicy: .lfu))
        #expect(CachePolicy.conservative == CachePolicy(maxAge: 300, maxSize: 16 << 20, maxCount: 1_000, evictionPolicy: .lru))
    }
}
