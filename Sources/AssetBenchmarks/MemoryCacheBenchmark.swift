import ArgumentParser
import AssetStorage
import Dispatch
import Foundation
import Synchronization

/// Memory cache throughput and hit rate: ours (LRU and LFU) beside Foundation's `NSCache` and a plain
/// `Dictionary` (no eviction: the floor), on one precomputed sequence of operations.
///
/// The workload is 80% reads and 20% writes of Zipf-distributed keys over a universe of twice the
/// cache's capacity; each key has a fixed cost (100...2,000 bytes), and the cost limit holds about
/// `entries` entries, so a full cache evicts. Every contender is first warmed by writing each key of
/// the universe once (least popular first, untimed), then runs the same operations on one thread and
/// then on two (the sequence split in halves). Every read uses the value it gets (as a caller would).
/// NSCache inserts in O(n) on Linux: its warm-up and its runs are capped by time, and its rate is the
/// operations it finished over the time they took.
struct MemoryCacheBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-cache",
        abstract: "MemoryCache vs NSCache vs Dictionary: ops/s and hit rate, 80% get / 20% set, Zipf keys."
    )

    enum KeyType: String, ExpressibleByArgument, CaseIterable {
        case int, string
    }

    @Option(name: .customLong("entries"), parsing: .upToNextOption, help: "Cache capacities to run, in entries.")
    var capacities: [Int] = [100_000, 1_000_000]

    @Option(name: .customLong("keys"), parsing: .upToNextOption, help: "Key types to run: int, string (URL-like).")
    var keyTypes: [KeyType] = [.int]

    @Option(help: "Timed operations per run (one run per thread count).")
    var ops: Int = 4_000_000

    @Option(parsing: .upToNextOption, help: "Thread counts to run.")
    var threads: [Int] = [1, 2]

    @Option(help: "Zipf exponent of the key distribution.")
    var zipf: Double = 0.99

    @Option(help: "Seconds NSCache may spend on its warm-up, and again on each timed run.")
    var nscacheSeconds: Double = 8

    @Option(help: "Runs of ours and of the Dictionary per case; the fastest is reported (NSCache runs once).")
    var repeats: Int = 3

    @Option(help: "Seed of the operation sequence.")
    var seed: UInt64 = 42

    func validate() throws {
        guard capacities.allSatisfy({ $0 > 0 }), ops > 0, threads.allSatisfy({ $0 > 0 }), repeats > 0 else {
            throw ValidationError("--entries, --ops, --threads and --repeats must be positive")
        }
        guard zipf > 0, nscacheSeconds > 0 else { throw ValidationError("--zipf and --nscache-seconds must be positive") }
    }

    func run() async throws {
        print("Workload: \(ops) timed ops per run, 80% get / 20% set, Zipf s = \(zipf) over 2 x entries keys,")
        print("costs 100...2,000 bytes per key, cost limit = entries x mean cost, count limit = entries. Each contender")
        print("is warmed by one set of every key (untimed); NSCache's warm-up and each of its runs are capped at")
        print("\(Self.trimmed(nscacheSeconds)) s. Values are a shared class instance per key, and every hit reads it.")
        print("String keys are URLs of about 50 bytes. Ours and the Dictionary: the fastest of \(repeats) runs, each")
        print("continuing on the same cache. Ratio: ours (LRU) / that row.")
        print("")
        print("| keys | entries | threads | contender | ops timed | ops/s | hit rate | ours/row |")
        print("|---|---:|---:|---|---:|---:|---:|---:|")
        var notes: [String] = []
        for keyType in keyTypes {
            for capacity in capacities {
                let workload = MemoryCacheWorkload(capacity: capacity, ops: ops, zipf: zipf, seed: seed)
                switch keyType {
                case .int:
                    let keys = Array(0..<workload.universe)
                    let objects: [NSObject] = keys.map { NSNumber(value: $0) }
                    compare(workload, keys: keys, objects: objects, label: "Int", notes: &notes)
                case .string:
                    let keys = (0..<workload.universe).map { "https://cdn.example.com/assets/images/\($0).png" }
                    let objects: [NSObject] = keys.map { NSString(string: $0) }
                    compare(workload, keys: keys, objects: objects, label: "String", notes: &notes)
                }
            }
        }
        if !notes.isEmpty {
            print("")
            for note in notes { print("- \(note)") }
        }
    }

    /// Runs every contender on one workload with one key type and prints their rows.
    private func compare<K: Hashable & Sendable>(
        _ w: MemoryCacheWorkload, keys: [K], objects: [NSObject], label: String, notes: inout [String]
    ) {
        var results: [MemoryCacheRun] = []
        results += runOurs(w, keys: keys, policy: .lru)
        results += runOurs(w, keys: keys, policy: .lfu)
        let nscache = runNSCache(w, keys: objects)
        results += nscache.runs
        results += runDictionary(w, keys: keys)
        if nscache.warmed < w.universe {
            let oursWarmUp = results.first { $0.contender == "MemoryCache (LRU)" }?.warmUpSeconds ?? 0
            notes.append(
                "\(label) keys, \(w.capacity) entries: NSCache's warm-up stored \(nscache.warmed) of the \(w.universe) "
                    + "keys in \(Self.trimmed(nscacheSeconds)) s (ours stored all of them in "
                    + String(format: "%.2f", oursWarmUp) + " s); its timed runs used that partly filled cache, "
                    + "whose O(n) inserts cost less than a full one's, so its figures flatter it."
            )
        }
        for t in threads {
            let ours = results.first { $0.contender == "MemoryCache (LRU)" && $0.threads == t }!
            for r in results where r.threads == t {
                let ratio = r.contender == ours.contender ? "" : String(format: "%.2fx", ours.opsPerSecond / r.opsPerSecond)
                print(
                    "| \(label) | \(w.capacity) | \(t) | \(r.contender)\(r.note) | \(r.ops) | \(Self.format(r.opsPerSecond)) | "
                        + String(format: "%.3f", r.hitRate) + " | \(ratio) |"
                )
            }
        }
    }

    static func format(_ rate: Double) -> String {
        var s = String(Int(rate.rounded()))
        var i = s.count - 3
        while i > 0 {
            s.insert(",", at: s.index(s.startIndex, offsetBy: i))
            i -= 3
        }
        return s
    }

    static func trimmed(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    // MARK: contenders

    private func runOurs<K: Hashable & Sendable>(
        _ w: MemoryCacheWorkload, keys: [K], policy: EvictionPolicy
    ) -> [MemoryCacheRun] {
        let cache = MemoryCache<K, MemoryCacheBox>(
            policy: CachePolicy(maxSize: w.costLimit, maxCount: w.capacity, evictionPolicy: policy)
        )
        let warmStart = DispatchTime.now().uptimeNanoseconds
        for key in stride(from: w.universe - 1, through: 0, by: -1) {
            cache.set(w.boxes[key], forKey: keys[key], cost: Int(w.costs[key]))
        }
        let warmUpSeconds = Double(DispatchTime.now().uptimeNanoseconds - warmStart) / 1e9
        return threads.map { t in
            var run = w.measure(threads: t, name: "MemoryCache (\(policy.rawValue.uppercased()))", repeats: repeats) { range in
                var hits = 0
                var checksum = 0
                for op in w.sequence[range] {
                    let key = op >> 1
                    if op & 1 == 1 {
                        cache.set(w.boxes[key], forKey: keys[key], cost: Int(w.costs[key]))
                    } else if let box = cache.value(forKey: keys[key]) {
                        hits += 1
                        checksum &+= box.key
                    }
                }
                return (range.count, hits, checksum)
            }
            run.warmUpSeconds = warmUpSeconds
            return run
        }
    }

    private func runNSCache(_ w: MemoryCacheWorkload, keys: [NSObject]) -> (runs: [MemoryCacheRun], warmed: Int) {
        let cache = MemoryCacheUncheckedBox(NSCache<NSObject, MemoryCacheBox>())
        cache.value.totalCostLimit = w.costLimit
        cache.value.countLimit = w.capacity
        let keys = MemoryCacheUncheckedBox(keys)
        let warmDeadline = DispatchTime.now().uptimeNanoseconds + UInt64(nscacheSeconds * 1e9)
        var warmed = 0
        for key in stride(from: w.universe - 1, through: 0, by: -1) {
            if warmed & 255 == 0, DispatchTime.now().uptimeNanoseconds > warmDeadline { break }
            cache.value.setObject(w.boxes[key], forKey: keys.value[key], cost: Int(w.costs[key]))
            warmed += 1
        }
        let note = warmed < w.universe ? " (partly warm, see below)" : ""
        let seconds = nscacheSeconds
        let runs = threads.map { t in
            var run = w.measure(threads: t, name: "NSCache", repeats: 1) { range in
                let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
                var hits = 0
                var checksum = 0
                var done = 0
                for op in w.sequence[range] {
                    if done & 255 == 0, DispatchTime.now().uptimeNanoseconds > deadline { break }
                    let key = op >> 1
                    if op & 1 == 1 {
                        cache.value.setObject(w.boxes[key], forKey: keys.value[key], cost: Int(w.costs[key]))
                    } else if let box = cache.value.object(forKey: keys.value[key]) {
                        hits += 1
                        checksum &+= box.key
                    }
                    done += 1
                }
                return (done, hits, checksum)
            }
            run.note = note
            return run
        }
        return (runs, warmed)
    }

    private func runDictionary<K: Hashable & Sendable>(_ w: MemoryCacheWorkload, keys: [K]) -> [MemoryCacheRun] {
        var warm: [K: MemoryCacheBox] = [:]
        for key in stride(from: w.universe - 1, through: 0, by: -1) { warm[keys[key]] = w.boxes[key] }
        let locked = MemoryCacheLockedDictionary(warm)
        return threads.map { t in
            if t == 1 {
                // One thread: the bare Dictionary, no lock (taken out of the box so that it is unique).
                let box = MemoryCacheUncheckedBox(locked.storage.withLock { d in
                    let taken = d
                    d = [:]
                    return taken
                })
                let run = w.measure(threads: 1, name: "Dictionary, no eviction", repeats: repeats) { range in
                    var dictionary = box.value
                    box.value = [:]
                    var hits = 0
                    var checksum = 0
                    for op in w.sequence[range] {
                        let key = op >> 1
                        if op & 1 == 1 {
                            dictionary[keys[key]] = w.boxes[key]
                        } else if let box = dictionary[keys[key]] {
                            hits += 1
                            checksum &+= box.key
                        }
                    }
                    box.value = dictionary
                    return (range.count, hits, checksum)
                }
                locked.storage.withLock { $0 = box.value }
                return run
            }
            return w.measure(threads: t, name: "Dictionary + Mutex, no eviction", repeats: repeats) { range in
                var hits = 0
                var checksum = 0
                for op in w.sequence[range] {
                    let key = op >> 1
                    if op & 1 == 1 {
                        let box = w.boxes[key]
                        locked.storage.withLock { $0[keys[key]] = box }
                    } else if let box = locked.storage.withLock({ $0[keys[key]] }) {
                        hits += 1
                        checksum &+= box.key
                    }
                }
                return (range.count, hits, checksum)
            }
        }
    }
}

/// A value stored in the caches: a class instance, as NSCache requires, shared by all contenders.
final class MemoryCacheBox: Sendable {
    let key: Int
    init(_ key: Int) { self.key = key }
}

/// A value handed to threads that the type system cannot prove safe: NSCache is documented as
/// thread-safe but is not Sendable; the other uses are read-only or handed over whole.
final class MemoryCacheUncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

final class MemoryCacheLockedDictionary<K: Hashable & Sendable>: Sendable {
    let storage: Mutex<[K: MemoryCacheBox]>
    init(_ dictionary: [K: MemoryCacheBox]) { storage = Mutex(dictionary) }
}

struct MemoryCacheRun {
    var contender: String
    var threads: Int
    var ops: Int
    var opsPerSecond: Double
    var hitRate: Double
    /// The sum of the keys of the values read; kept so that the reads cannot be optimized away.
    var checksum: Int
    var note = ""
    var warmUpSeconds = 0.0
}

/// The precomputed operations: `sequence[i] = key << 1 | isSet`, keys (indices into the universe)
/// Zipf-distributed by rank.
struct MemoryCacheWorkload: Sendable {
    let capacity: Int
    let universe: Int
    let costs: [Int32]
    let costLimit: Int
    let boxes: [MemoryCacheBox]
    let sequence: [Int]

    init(capacity: Int, ops: Int, zipf: Double, seed: UInt64) {
        self.capacity = capacity
        let universe = capacity * 2
        self.universe = universe
        var rng = MemoryCacheRandom(seed: seed ^ UInt64(capacity))
        costs = (0..<universe).map { _ in Int32.random(in: 100...2_000, using: &rng) }
        costLimit = costs.reduce(0) { $0 + Int($1) } / universe * capacity
        boxes = (0..<universe).map { MemoryCacheBox($0) }
        var cdf = [Double](repeating: 0, count: universe)
        var sum = 0.0
        for rank in 0..<universe {
            sum += 1 / pow(Double(rank + 1), zipf)
            cdf[rank] = sum
        }
        var sequence = [Int](repeating: 0, count: ops)
        for i in 0..<ops {
            let u = Double.random(in: 0..<sum, using: &rng)
            var lo = 0
            var hi = universe - 1
            while lo < hi {
                let mid = (lo + hi) >> 1
                if cdf[mid] <= u { lo = mid + 1 } else { hi = mid }
            }
            let isSet = Int.random(in: 0..<10, using: &rng) < 2
            sequence[i] = lo << 1 | (isSet ? 1 : 0)
        }
        self.sequence = sequence
    }

    /// Runs `body` `repeats` times on `threads` threads, each over its share of the sequence, and
    /// returns the fastest run; `body` returns the operations it did, its hits, and a sum over the values
    /// it read.
    func measure(
        threads: Int, name: String, repeats: Int,
        _ body: @escaping @Sendable (Range<Int>) -> (ops: Int, hits: Int, checksum: Int)
    ) -> MemoryCacheRun {
        var best = measureOnce(threads: threads, name: name, body)
        for _ in 1..<max(1, repeats) {
            let run = measureOnce(threads: threads, name: name, body)
            if run.opsPerSecond > best.opsPerSecond { best = run }
        }
        return best
    }

    private func measureOnce(
        threads: Int, name: String, _ body: @escaping @Sendable (Range<Int>) -> (ops: Int, hits: Int, checksum: Int)
    ) -> MemoryCacheRun {
        let share = sequence.count / threads
        let results = MemoryCacheUncheckedBox([(ops: Int, hits: Int, checksum: Int)](repeating: (0, 0, 0), count: threads))
        let lock = NSLock()
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let result = body(t * share..<(t + 1) * share)
            lock.withLock { results.value[t] = result }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let ops = results.value.reduce(0) { $0 + $1.ops }
        let hits = results.value.reduce(0) { $0 + $1.hits }
        let checksum = results.value.reduce(0) { $0 &+ $1.checksum }
        let reads = results.value.indices.reduce(0) { total, t in
            total + sequence[t * share..<(t * share + results.value[t].ops)].reduce(0) { $0 + (1 - $1 & 1) }
        }
        return MemoryCacheRun(
            contender: name, threads: threads, ops: ops, opsPerSecond: Double(ops) / seconds,
            hitRate: reads == 0 ? 0 : Double(hits) / Double(reads), checksum: checksum
        )
    }
}

/// SplitMix64: a small seeded generator, so that every contender gets the same operations.
struct MemoryCacheRandom: RandomNumberGenerator {
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
