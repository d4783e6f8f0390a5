import AssetStorage
import Foundation
import Testing

@Suite("MemoryCache snapshots")
struct MemoryCacheSnapshotTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("memory-cache-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct Model: Codable, Equatable, Sendable {
        var name: String
        var frames: [Double]
    }

    @Test(arguments: EvictionPolicy.allCases)
    func roundTripKeepsEntriesCostsAgesAndOrder(policy: EvictionPolicy) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("lottie.snapshot.json")
        let clock = ManualClock()
        let cachePolicy = CachePolicy(maxAge: 100, maxSize: 1_000, maxCount: 10, evictionPolicy: policy)
        let cache = MemoryCache<String, Model>(policy: cachePolicy, clock: clock)
        for i in 0..<5 {
            cache.set(Model(name: "m\(i)", frames: [Double(i), 0.5]), forKey: "k\(i)", cost: 10 * (i + 1))
            clock.advance(by: 10)
        }
        _ = cache.value(forKey: "k0")
        _ = cache.value(forKey: "k0")
        _ = cache.value(forKey: "k2")
        let order = cache.keysInEvictionOrder
        #expect(try cache.save(to: file) == 5)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["lottie.snapshot.json"])  // no temporary file left behind

        clock.advance(by: 15)  // the restart took 15 s: k0 (written at 0) is now 65 s old
        let restored = MemoryCache<String, Model>(policy: cachePolicy, clock: clock)
        #expect(try restored.load(from: file) == 5)
        #expect(restored.keysInEvictionOrder == order)
        #expect(restored.totalCost == 150)
        #expect(restored.value(forKey: "k3") == Model(name: "m3", frames: [3, 0.5]))
        clock.advance(by: 35)  // k0 is 100 s old, k1 90 s
        #expect(restored.value(forKey: "k0") == nil)
        #expect(restored.value(forKey: "k1") != nil)
        #expect(restored.statistics.expirations == 1)
    }

    @Test func lfuSnapshotKeepsUseCounts() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("lfu.json")
        let policy = CachePolicy(maxSize: 1_000, maxCount: 10, evictionPolicy: .lfu)
        let cache = MemoryCache<String, Int>(policy: policy, clock: ManualClock())
        for key in ["a", "b", "c"] { cache.set(0, forKey: key) }
        for _ in 0..<3 { _ = cache.value(forKey: "a") }  // a 4, b 1, c 2
        _ = cache.value(forKey: "c")
        try cache.save(to: file)
        let restored = MemoryCache<String, Int>(policy: policy, clock: ManualClock())
        try restored.load(from: file)
        #expect(restored.keysInEvictionOrder == ["b", "c", "a"])
        // With the counts kept, two more uses of b (3) put it between c (2) and a (4); had the load
        // reset every count to 1, b would end up last.
        _ = restored.value(forKey: "b")
        _ = restored.value(forKey: "b")
        #expect(restored.keysInEvictionOrder == ["c", "b", "a"])
    }

    @Test func loadSkipsExpiredEntriesAndRespectsTheLimits() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("s.json")
        let clock = ManualClock()
        let big = MemoryCache<Int, Int>(policy: CachePolicy(maxSize: 1_000, maxCount: 100), clock: clock)
        for i in 0..<10 {
            big.set(i, forKey: i, cost: 1)
            clock.advance(by: 1)
        }
        try big.save(to: file)
        clock.advance(by: 1)  // entry i is now 11 - i seconds old
        let small = MemoryCache<Int, Int>(policy: CachePolicy(maxAge: 9, maxSize: 1_000, maxCount: 4), clock: clock)
        small.set(-1, forKey: 5, cost: 1)
        #expect(try small.load(from: file) == 4)  // 0...2 expired; of 3...9 the last four stay
        #expect(small.keysInEvictionOrder == [6, 7, 8, 9])
        #expect(small.value(forKey: 5) == nil)
    }

    @Test func corruptOrMissingSnapshotThrowsATypedError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("s.json")
        let cache = MemoryCache<String, Int>(policy: .default, clock: ManualClock())
        for i in 0..<20 { cache.set(i, forKey: "key\(i)", cost: i) }
        try cache.save(to: file)
        let whole = try Data(contentsOf: file)

        let target = MemoryCache<String, Int>(policy: .default, clock: ManualClock())
        func loadError() -> MemoryCache<String, Int>.SnapshotError? {
            do {
                try target.load(from: file)
                return nil
            } catch {
                return error
            }
        }
        try whole.prefix(whole.count / 2).write(to: file)
        #expect(loadError()?.code == .corrupt)
        try Data("not json at all".utf8).write(to: file)
        #expect(loadError()?.code == .corrupt)
        try Data(#"{"entries": [], "format": "something else", "version": 1, "savedAt": 0, "evictionPolicy": "lru"}"#.utf8)
            .write(to: file)
        #expect(loadError()?.code == .corrupt)
        var text = String(decoding: whole, as: UTF8.self)
        text = text.replacingOccurrences(of: #""version":1"#, with: #""version":99"#)
        try Data(text.utf8).write(to: file)
        #expect(loadError()?.code == .unsupportedVersion)
        // A snapshot of another value type does not decode as this one.
        let other = MemoryCache<String, String>(policy: .default, clock: ManualClock())
        other.set("x", forKey: "a")
        try other.save(to: file)
        #expect(loadError()?.code == .corrupt)
        try FileManager.default.removeItem(at: file)
        #expect(loadError()?.code == .unreadable)
        #expect(target.count == 0)

        let unwritable = directory.appendingPathComponent("no-such-dir/s.json")
        do {
            try cache.save(to: unwritable)
            Issue.record("save into a missing directory succeeded")
        } catch {
            #expect(error.code == .unwritable)
        }
    }
}
