import AssetStorage
import Foundation
import Testing

/// A deliberately simple cache with the documented semantics: an array, scanned on every operation.
private struct ReferenceCache {
    struct Entry {
        var key: Int
        var value: Int
        var cost: Int
        var storedAt: Double
        var frequency: Int
        /// The moment that orders the entry for its policy (last use, last write, or first write).
        var tick: Int
    }

    let policy: CachePolicy
    var entries: [Entry] = []
    var tick = 0

    var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }

    /// Entries in eviction order, the next victim first.
    var evictionOrder: [Entry] {
        entries.sorted { a, b in
            if policy.evictionPolicy == .lfu, a.frequency != b.frequency { return a.frequency < b.frequency }
            return a.tick < b.tick
        }
    }

    mutating func get(_ key: Int, now: Double) -> Int? {
        tick += 1
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        if let maxAge = policy.maxAge, now - entries[i].storedAt >= maxAge {
            entries.remove(at: i)
            return nil
        }
        switch policy.evictionPolicy {
        case .lru: entries[i].tick = tick
        case .lfu: entries[i].frequency += 1; entries[i].tick = tick
        case .fifo, .ttl: break
        }
        return entries[i].value
    }

    mutating func set(_ value: Int, forKey key: Int, cost: Int, now: Double) -> Bool {
        tick += 1
        let existing = entries.firstIndex(where: { $0.key == key })
        guard cost <= policy.maxSize, policy.maxCount > 0 else {
            if let existing { entries.remove(at: existing) }
            return false
        }
        if let i = existing {
            entries[i].value = value
            entries[i].cost = cost
            entries[i].storedAt = now
            switch policy.evictionPolicy {
            case .lru, .ttl: entries[i].tick = tick
            case .lfu: entries[i].frequency += 1; entries[i].tick = tick
            case .fifo: break
            }
            while entries.count > policy.maxCount || totalCost > policy.maxSize {
                let victim = evictionOrder.first { $0.key != key }!
                entries.removeAll { $0.key == victim.key }
            }
        } else {
            while entries.count >= policy.maxCount || totalCost + cost > policy.maxSize {
                let victim = evictionOrder[0]
                entries.removeAll { $0.key == victim.key }
            }
            entries.append(Entry(key: key, value: value, cost: cost, storedAt: now, frequency: 1, tick: tick))
        }
        return true
    }

    mutating func remove(_ key: Int) -> Int? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: i).value
    }
}

/// A small seeded generator (MemoryCacheTestRandom) so that a failure can be replayed.
struct MemoryCacheTestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("MemoryCache against a reference model")
struct MemoryCacheModelTests {
    /// One randomized run: the limits, how many keys the operations draw from, and how often to compare
    /// the whole eviction order (every step for the small runs; the large ones grow the node and bucket
    /// buffers many times and reuse freed slots).
    struct Run: Sendable, CustomTestStringConvertible {
        var policy: EvictionPolicy
        var maxAge: TimeInterval?
        var maxCount: Int
        var maxSize: Int
        var keys: Int
        var steps: Int
        var checkEvery: Int

        var testDescription: String {
            "\(policy) maxAge \(maxAge.map { "\($0)" } ?? "nil") count \(maxCount) size \(maxSize) keys \(keys)"
        }
    }

    static let runs: [Run] = EvictionPolicy.allCases.flatMap { policy in
        [
            Run(policy: policy, maxAge: nil, maxCount: 12, maxSize: 400, keys: 30, steps: 6_000, checkEvery: 1),
            Run(policy: policy, maxAge: 40, maxCount: 12, maxSize: 400, keys: 30, steps: 6_000, checkEvery: 1),
            Run(policy: policy, maxAge: 30, maxCount: 300, maxSize: 12_000, keys: 1_000, steps: 20_000, checkEvery: 500),
        ]
    }

    @Test(arguments: runs)
    func randomOperationsMatchTheReference(run: Run) {
        let cachePolicy = CachePolicy(
            maxAge: run.maxAge, maxSize: run.maxSize, maxCount: run.maxCount, evictionPolicy: run.policy
        )
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(policy: cachePolicy, clock: clock)
        var reference = ReferenceCache(policy: cachePolicy)
        let policyNumber = UInt64(EvictionPolicy.allCases.firstIndex(of: run.policy)!)
        var rng = MemoryCacheTestRandom(seed: 0xA55E7 &+ policyNumber &* 7 &+ UInt64(run.keys) &+ (run.maxAge == nil ? 0 : 1))
        var elapsed = 0.0
        for step in 0..<run.steps {
            // Keys skewed toward small numbers (the square of a uniform), so that frequencies spread out.
            let u = Double.random(in: 0..<1, using: &rng)
            let key = Int(u * u * Double(run.keys))
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 3 {
                let by = Double(Int.random(in: 1...15, using: &rng))
                clock.advance(by: by)
                elapsed += by
            }
            let now = elapsed
            let smallCost = run.maxSize / run.maxCount * 2
            if roll < 50 {
                let got = cache.value(forKey: key)
                let expected = reference.get(key, now: now)
                #expect(got == expected, "get \(key) at step \(step)")
            } else if roll < 90 {
                // Mostly small costs, now and then one near or over the whole limit.
                let cost = roll < 88
                    ? Int.random(in: 0...smallCost, using: &rng)
                    : Int.random(in: run.maxSize - 20...run.maxSize + 20, using: &rng)
                let stored = cache.set(step, forKey: key, cost: cost)
                let expected = reference.set(step, forKey: key, cost: cost, now: now)
                #expect(stored == expected, "set \(key) cost \(cost) at step \(step)")
            } else if roll < 98 {
                #expect(cache.removeValue(forKey: key) == reference.remove(key), "remove \(key) at step \(step)")
            } else {
                let target = run.maxSize / 2
                let evicted = cache.trim(toCost: target)
                var expectedEvicted = 0
                while reference.totalCost > target {
                    let victim = reference.evictionOrder[0]
                    reference.entries.removeAll { $0.key == victim.key }
                    expectedEvicted += 1
                }
                #expect(evicted == expectedEvicted)
            }
            #expect(cache.totalCost == reference.totalCost)
            #expect(cache.count == reference.entries.count)
            if step % run.checkEvery == 0 || step == run.steps - 1 {
                let order = cache.keysInEvictionOrder
                let expectedOrder = reference.evictionOrder.map(\.key)
                if order != expectedOrder {
                    Issue.record("order differs at step \(step): \(order) vs \(expectedOrder)")
                    return
                }
            }
        }
        let stats = cache.statistics
        #expect(stats.count <= run.maxCount && stats.totalCost <= run.maxSize)
        #expect(stats.evictions > 0)
        if run.maxAge != nil { #expect(stats.expirations > 0) }
    }
}
