import AssetStorage
import Testing

@Suite("MemoryCache eviction")
struct MemoryCacheEvictionTests {
    private func cache(_ policy: EvictionPolicy, maxCount: Int = 3, maxSize: Int = .max) -> MemoryCache<String, Int> {
        MemoryCache(policy: CachePolicy(maxSize: maxSize, maxCount: maxCount, evictionPolicy: policy), clock: ManualClock())
    }

    @Test func lruEvictsTheLeastRecentlyUsed() {
        let c = cache(.lru)
        c.set(1, forKey: "a")
        c.set(2, forKey: "b")
        c.set(3, forKey: "c")
        #expect(c.value(forKey: "a") == 1)  // a is now the most recent; b is the least
        c.set(4, forKey: "d")
        #expect(c.value(forKey: "b") == nil)
        #expect(c.keysInEvictionOrder == ["c", "a", "d"])
        c.set(30, forKey: "c")  // an overwrite is a use too
        c.set(5, forKey: "e")
        #expect(c.keysInEvictionOrder == ["d", "c", "e"])
        #expect(c.statistics.evictions == 2)
    }

    @Test func lfuEvictsTheLeastFrequentlyUsedThenTheLeastRecent() {
        let c = cache(.lfu)
        c.set(1, forKey: "a")
        c.set(2, forKey: "b")
        c.set(3, forKey: "c")
        _ = c.value(forKey: "a")
        _ = c.value(forKey: "a")
        _ = c.value(forKey: "b")
        // frequencies: a 3, b 2, c 1
        c.set(4, forKey: "d")  // evicts c (frequency 1)
        #expect(!c.contains("c"))
        #expect(c.keysInEvictionOrder == ["d", "b", "a"])
        _ = c.value(forKey: "d")  // d 2, used after b: b goes first among the 2s
        c.set(5, forKey: "e")
        #expect(c.keysInEvictionOrder == ["e", "d", "a"])
        #expect(!c.contains("b"))
        c.set(6, forKey: "f")  // the new entry e (1) goes before the newer f is stored
        #expect(c.keysInEvictionOrder == ["f", "d", "a"])
    }

    @Test func lfuNewEntryIsNotItsOwnVictim() {
        let c = cache(.lfu, maxCount: 2)
        c.set(1, forKey: "a")
        c.set(2, forKey: "b")
        for _ in 0..<5 {
            _ = c.value(forKey: "a")
            _ = c.value(forKey: "b")
        }
        c.set(3, forKey: "c")
        #expect(c.value(forKey: "c") == 3)
        #expect(c.count == 2)
    }

    @Test func fifoIgnoresReadsAndKeepsAnOverwrittenKeysPlace() {
        let c = cache(.fifo)
        c.set(1, forKey: "a")
        c.set(2, forKey: "b")
        c.set(3, forKey: "c")
        _ = c.value(forKey: "a")
        c.set(20, forKey: "b")
        #expect(c.keysInEvictionOrder == ["a", "b", "c"])
        c.set(4, forKey: "d")
        #expect(c.keysInEvictionOrder == ["b", "c", "d"])
        #expect(c.value(forKey: "b") == 20)
    }

    @Test func ttlIgnoresReadsAndAnOverwriteRenews() {
        let c = cache(.ttl)
        c.set(1, forKey: "a")
        c.set(2, forKey: "b")
        c.set(3, forKey: "c")
        _ = c.value(forKey: "a")
        c.set(20, forKey: "b")
        #expect(c.keysInEvictionOrder == ["a", "c", "b"])
        c.set(4, forKey: "d")
        #expect(c.keysInEvictionOrder == ["c", "b", "d"])
    }

    @Test(arguments: EvictionPolicy.allCases)
    func costLimitIsEnforcedOnWrite(policy: EvictionPolicy) {
        let c = cache(policy, maxCount: 100, maxSize: 100)
        c.set(1, forKey: "a", cost: 40)
        c.set(2, forKey: "b", cost: 40)
        #expect(c.totalCost == 80)
        c.set(3, forKey: "c", cost: 30)  // 110 > 100: a (first in every policy here) goes
        #expect(c.totalCost == 70)
        #expect(c.keysInEvictionOrder == ["b", "c"])
        c.set(30, forKey: "c", cost: 70)  // overwrite grows c to 110 in all: b goes, c stays
        #expect(c.totalCost == 70)
        #expect(c.keysInEvictionOrder == ["c"])
        c.set(31, forKey: "c", cost: 10)  // and shrinks
        #expect(c.totalCost == 10)
        #expect(c.statistics.evictions == 2)
    }

    @Test(arguments: EvictionPolicy.allCases)
    func countLimitIsEnforcedOnWrite(policy: EvictionPolicy) {
        let c = cache(policy, maxCount: 10)
        for i in 0..<25 { c.set(i, forKey: "k\(i)", cost: 1) }
        #expect(c.count == 10)
        #expect(c.totalCost == 10)
        #expect(c.keysInEvictionOrder == (15..<25).map { "k\($0)" })
        #expect(c.statistics.evictions == 15)
    }

    @Test(arguments: EvictionPolicy.allCases)
    func oversizeEntryIsRejectedAndRemovesTheStaleValue(policy: EvictionPolicy) {
        let c = cache(policy, maxCount: 10, maxSize: 100)
        #expect(c.set(1, forKey: "a", cost: 50))
        #expect(c.set(2, forKey: "b", cost: 50))
        #expect(!c.set(3, forKey: "big", cost: 101))
        #expect(c.value(forKey: "big") == nil)
        #expect(c.keysInEvictionOrder == ["a", "b"])  // nothing was evicted for it
        #expect(!c.set(4, forKey: "a", cost: 1_000))
        #expect(c.value(forKey: "a") == nil)  // the old value is not served
        #expect(c.totalCost == 50)
        #expect(c.set(5, forKey: "exact", cost: 100))  // exactly the limit fits, alone
        #expect(c.keysInEvictionOrder == ["exact"])
        #expect(c.statistics.evictions == 1)
    }

    @Test func negativeCostCountsAsZeroAndZeroCountLimitStoresNothing() {
        let c = cache(.lru, maxCount: 0)
        #expect(!c.set(1, forKey: "a"))
        #expect(c.count == 0)
        let d = cache(.lru, maxCount: 5, maxSize: 10)
        d.set(1, forKey: "a", cost: -5)
        #expect(d.totalCost == 0)
        #expect(d.value(forKey: "a") == 1)
    }
}
