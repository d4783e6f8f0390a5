import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON form of a saved ``MemoryCache``.
struct MemoryCacheSnapshot<Key: Codable, Value: Codable>: Codable {
    struct Entry: Codable {
        var key: Key
        var value: Value
        var cost: Int
        /// Seconds since the value was written, at `savedAt`.
        var age: Double
        /// The LFU use count (1 for the other policies).
        var frequency: Int
    }

    static var currentFormat: String { "assetpipe.memory-cache" }
    static var currentVersion: Int { 1 }

    var format: String
    var version: Int
    /// When the snapshot was taken (seconds since 1970, by the cache's clock).
    var savedAt: Double
    var evictionPolicy: EvictionPolicy
    /// In eviction order: the entry that would be evicted first comes first.
    var entries: [Entry]
}

extension MemoryCache where Key: Codable, Value: Codable {
    /// Writes every live entry, with its cost, age and (LFU) use count, in eviction order, to a JSON file
    /// at `url`, atomically: a temporary file in the same directory, then a rename over `url`.
    ///
    /// - Returns: the number of entries written.
    @discardableResult
    public func save(to url: URL) throws(SnapshotError) -> Int {
        let nowDate = clock.now
        let now = nowDate.timeIntervalSinceReferenceDate
        let entries: [MemoryCacheSnapshot<Key, Value>.Entry] = state.withLock { state in
            state.indicesInEvictionOrder().compactMap { i in
                let node = state.nodes[Int(i)]
                guard let key = node.key, let value = node.value, now - node.storedAt < state.maxAge else {
                    return nil
                }
                let frequency = state.policy == .lfu ? state.buckets[Int(node.bucket)].frequency : 1
                return .init(key: key, value: value, cost: node.cost, age: now - node.storedAt, frequency: frequency)
            }
        }
        let snapshot = MemoryCacheSnapshot(
            format: MemoryCacheSnapshot<Key, Value>.currentFormat,
            version: MemoryCacheSnapshot<Key, Value>.currentVersion,
            savedAt: nowDate.timeIntervalSince1970,
            evictionPolicy: policy.evictionPolicy,
            entries: entries
        )
        let data: Data
        do {
            data = try JSONEncoder().encode(snapshot)
        } catch {
            throw SnapshotError(code: .unwritable, message: "cannot encode a snapshot for \(url.path)", cause: error)
        }
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        )
        do {
            try data.write(to: temporary)
        } catch {
            throw SnapshotError(code: .unwritable, message: "cannot write \(temporary.path)", cause: error)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw SnapshotError(
                code: .unwritable,
                message: "cannot rename \(temporary.path) to \(url.path): \(String(cString: strerror(code)))"
            )
        }
        return entries.count
    }

    /// Adds the entries of a snapshot written by ``save(to:)``, as if they were written again in their
    /// saved order (so a warm restart keeps their eviction order), keeping their ages.
    ///
    /// The time between saving and loading counts toward an entry's age; entries that have outlived this
    /// cache's `maxAge` are skipped. This cache's limits apply: when the snapshot holds more than fits,
    /// the entries it would evict first are dropped. A key already in the cache gets the snapshot's value.
    ///
    /// - Returns: the number of entries stored.
    /// - Throws: ``SnapshotError`` `.unreadable` if the file cannot be read, `.corrupt` if it is not a
    ///   valid snapshot, `.unsupportedVersion` for another format version. Nothing is stored then.
    @discardableResult
    public func load(from url: URL) throws(SnapshotError) -> Int {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SnapshotError(code: .unreadable, message: "cannot read \(url.path)", cause: error)
        }
        let snapshot: MemoryCacheSnapshot<Key, Value>
        do {
            snapshot = try JSONDecoder().decode(MemoryCacheSnapshot<Key, Value>.self, from: data)
        } catch {
            throw SnapshotError(code: .corrupt, message: "\(url.path) is not a valid snapshot", cause: error)
        }
        guard snapshot.format == MemoryCacheSnapshot<Key, Value>.currentFormat else {
            throw SnapshotError(code: .corrupt, message: "\(url.path) is not a memory cache snapshot")
        }
        guard snapshot.version == MemoryCacheSnapshot<Key, Value>.currentVersion else {
            throw SnapshotError(
                code: .unsupportedVersion,
                message: "\(url.path) has snapshot version \(snapshot.version); this code reads version 1"
            )
        }
        guard snapshot.savedAt.isFinite, snapshot.entries.allSatisfy({ $0.age.isFinite }) else {
            throw SnapshotError(code: .corrupt, message: "\(url.path) has a time that is not a number")
        }
        let now = nowSeconds
        let savedAt = Date(timeIntervalSince1970: snapshot.savedAt).timeIntervalSinceReferenceDate
        return state.withLock { state in
            var loaded = Set<Key>()
            for entry in snapshot.entries {
                let storedAt = savedAt - entry.age
                guard now - storedAt < state.maxAge else { continue }
                if state.restore(
                    entry.value, forKey: entry.key, cost: entry.cost, storedAt: storedAt, frequency: entry.frequency
                ) {
                    loaded.insert(entry.key)
                }
            }
            // A later entry may have evicted an earlier one to fit: count what stayed.
            return loaded.reduce(0) { $0 + (state.index[$1] == nil ? 0 : 1) }
        }
    }
}
