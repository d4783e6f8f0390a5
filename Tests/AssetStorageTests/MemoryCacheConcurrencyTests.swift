import AssetStorage
import Testing

@Suite("MemoryCache under concurrent use")
struct MemoryCacheConcurrencyTests {
    @Test(arguments: EvictionPolicy.allCases)
    func manyTasksKeepTheInvariants(policy: EvictionPolicy) async {
        let cache = MemoryCache<Int, Int>(
            policy: CachePolicy(maxAge: 1_000, maxSize: 5_000, maxCount: 200, evictionPolicy: policy),
            clock: ManualClock()
        )
        let tasks = 16
        let opsPerTask = 5_000
        let reads = await withTaskGroup(of: Int.self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var rng = MemoryCacheTestRandom(seed: UInt64(t + 1))
                    var reads = 0
                    for step in 0..<opsPerTask {
                        let key = Int.random(in: 0..<500, using: &rng)
                        switch Int.random(in: 0..<100, using: &rng) {
                        case 0..<60:
                            reads += 1
                            // The value is always the entry's cost: a torn entry would show here.
                            if let value = cache.value(forKey: key), value != key % 97 { return -1 }
                        case 60..<95: cache.set(key % 97, forKey: key, cost: key % 97)
                        case 95..<99: cache.removeValue(forKey: key)
                        default: if step % 2 == 0 { cache.trim(toCost: 2_500) } else { cache.trim(toCount: 100) }
                        }
                    }
                    return reads
                }
            }
            var total = 0
            for await reads in group {
                if reads < 0 { return -1 }
                total += reads
            }
            return total
        }
        #expect(reads > 0, "a reader saw a value that was never written for its key")
        let stats = cache.statistics
        #expect(stats.hits + stats.misses == reads)
        #expect(stats.count <= 200)
        #expect(stats.totalCost <= 5_000)
        let keys = cache.keysInEvictionOrder
        #expect(keys.count == stats.count)
        #expect(Set(keys).count == keys.count)
        #expect(keys.reduce(0) { $0 + $1 % 97 } == stats.totalCost)
        #expect(stats.evictions > 0)
    }
}
