#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

extension ChunkStore {
    /// What became of a ``writeChunk(forKey:generation:index:bytes:)-(_,_,_,UnsafeRawBufferPointer)``.
    public enum WriteOutcome: Sendable, Hashable {
        /// The chunk is now on disk and claimed by the record.
        case stored
        /// The record already had that chunk; nothing was written (no second copy).
        case alreadyPresent
        /// The resource was replaced or removed meanwhile (by this or another process): the bytes
        /// belong to a version that is no longer stored, so they were not kept.
        case staleGeneration
        /// The budget could not make room without evicting chunks that are being read.
        case noRoom
    }

    /// Starts a new version of `key`: drops its record and every chunk, and writes a record
    /// with a new generation and no chunks.
    @discardableResult
    public func replaceResource(forKey key: String, info: ChunkRecord.ResourceInfo) throws -> ChunkRecord {
        try settleVersion(forKey: key) { _ in .replace(info) }
    }

    /// What ``settleVersion(forKey:_:)`` does with the stored record.
    public enum VersionDecision: Sendable {
        /// The stored chunks are of this version: keep them, with this info.
        case keep(ChunkRecord.ResourceInfo)
        /// Another version: drop every chunk and start a record with this info.
        case replace(ChunkRecord.ResourceInfo)
    }

    /// Decides, under the store's lock (so that two readers or processes that learn of a
    /// version at once agree on one generation), whether the stored record of `key` is kept or
    /// replaced. `decide` sees the current record (`nil` when there is none, then any decision
    /// creates one). Returns the record now stored.
    @discardableResult
    public func settleVersion(forKey key: String, _ decide: (ChunkRecord?) -> VersionDecision) throws -> ChunkRecord {
        try Self.validate(key: key)
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        return try lock.withLock {
            try syncLocked()
            let current = state.withLock { $0.resources[hash]?.record }
            var record: ChunkRecord
            switch decide(current) {
            case .keep(let info) where current != nil:
                record = current!
                record.info = info
                try writeDroppingContradictedChunksLocked(&record, hash: hash)
            case .keep(let info), .replace(let info):
                record = ChunkRecord(
                    key: key, generation: UInt64.random(in: 1...UInt64.max), chunkSize: configuration.chunkSize,
                    createdDate: configuration.clock.now, info: info, chunks: [:])
                try removeLocked(hash: hash)
                try writeRecordLocked(record, hash: hash)
            }
            try bumpCounter()
            return record
        }
    }

    /// Changes what the record of `key` says of the resource (a refreshed exchange, a length
    /// learned late), when `generation` is still the stored version. A length that contradicts
    /// present chunks drops them. Returns the new record, or `nil` when that version is gone.
    @discardableResult
    public func updateInfo(
        forKey key: String, generation: UInt64, _ change: (inout ChunkRecord.ResourceInfo) -> Void
    ) throws -> ChunkRecord? {
        try Self.validate(key: key)
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        return try lock.withLock {
            try syncLocked()
            guard var record = state.withLock({ $0.resources[hash]?.record }), record.generation == generation else {
                return nil
            }
            change(&record.info)
            try writeDroppingContradictedChunksLocked(&record, hash: hash)
            try bumpCounter()
            return record
        }
    }

    /// Stores chunk `index` of version `generation` of `key`. `bytes` must be the chunk size,
    /// or exactly what is left for the last chunk when the length is known. The chunk is written
    /// to a temporary file, room is made by evicting the least recently used unpinned chunks,
    /// then it is renamed into place and the record claims it.
    @discardableResult
    public func writeChunk(forKey key: String, generation: UInt64, index: Int, bytes: UnsafeRawBufferPointer) throws -> WriteOutcome {
        try Self.validate(key: key)
        try checkOpen()
        try syncIfChanged()
        let hash = CacheKeyHash.fileName(for: key)
        guard let record = state.withLock({ $0.resources[hash]?.record }), record.generation == generation else {
            return .staleGeneration
        }
        if record.contains(chunk: index) { return .alreadyPresent }
        guard let expected = record.expectedLength(ofChunk: index), expected == bytes.count else {
            throw StorageError(.invalidArgument, "chunk \(index) of \(key) has \(bytes.count) bytes, not the length its record allows")
        }
        guard Int64(bytes.count) <= configuration.maxBytes else { return .noRoom }
        let checksum = CacheKeyHash.hex(SHA256.hash(data: bytes))

        let temp = temporaryPath()
        let fd = try POSIX.open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        do {
            defer { POSIX.close(fd) }
            try POSIX.writeAll(fd, bytes, temp)
        } catch {
            _ = try? POSIX.unlink(temp)
            throw error
        }
        let id = ChunkID(hash: hash, generation: generation, index: index)
        do {
            let outcome = try lock.withLock { () throws -> WriteOutcome in
                try syncLocked()
                guard let current = state.withLock({ $0.resources[hash]?.record }), current.generation == generation else {
                    return .staleGeneration
                }
                if current.contains(chunk: index) { return .alreadyPresent }
                guard try makeRoomLocked(for: Int64(bytes.count)) else { return .noRoom }
                do {
                    try POSIX.rename(temp, chunkPath(id))
                } catch let error as StorageError where error.errno == ENOENT {
                    try POSIX.mkdirs(resourceDirectory(hash))
                    try POSIX.rename(temp, chunkPath(id))
                }
                var updated = state.withLock { $0.resources[hash]!.record }
                updated.chunks[index] = ChunkRecord.Chunk(
                    length: bytes.count, lastAccess: configuration.clock.now.timeIntervalSince1970, checksum: checksum)
                try writeRecordLocked(updated, hash: hash)
                try bumpCounter()
                return .stored
            }
            if outcome != .stored { _ = try? POSIX.unlink(temp) }
            return outcome
        } catch {
            _ = try? POSIX.unlink(temp)
            throw error
        }
    }

    /// Stores a chunk; see ``writeChunk(forKey:generation:index:bytes:)-(_,_,_,UnsafeRawBufferPointer)``.
    @discardableResult
    public func writeChunk(forKey key: String, generation: UInt64, index: Int, bytes: some ContiguousBytes) throws -> WriteOutcome {
        try bytes.withUnsafeBytes { try writeChunk(forKey: key, generation: generation, index: index, bytes: $0) }
    }

    /// Writes `record` after unclaiming the chunks whose length its (new) total length
    /// contradicts, then deletes those chunks. Call under the lock.
    private func writeDroppingContradictedChunksLocked(_ record: inout ChunkRecord, hash: String) throws {
        let wrong = record.chunks.filter { record.expectedLength(ofChunk: $0.key) != $0.value.length }.map(\.key)
        for index in wrong { record.chunks[index] = nil }
        try writeRecordLocked(record, hash: hash)
        for index in wrong {
            try POSIX.unlink(chunkPath(ChunkID(hash: hash, generation: record.generation, index: index)))
        }
    }

    /// Evicts least recently used chunks that no reader here has pinned until `incoming` more
    /// bytes fit `budget` (by default the configured one); false (and nothing evicted) when they
    /// cannot. Call under the lock.
    func makeRoomLocked(for incoming: Int64, budget: Int64? = nil) throws -> Bool {
        let budget = budget ?? configuration.maxBytes
        let (victims, fits) = state.withLock { s -> ([(ChunkID, Int)], Bool) in
            let excess = s.totalBytes + incoming - budget
            guard excess > 0 else { return ([], true) }
            var candidates: [(id: ChunkID, length: Int, access: Double)] = []
            for (hash, resource) in s.resources {
                for (index, chunk) in resource.record.chunks {
                    let id = ChunkID(hash: hash, generation: resource.record.generation, index: index)
                    if s.pins[id] == nil { candidates.append((id, chunk.length, chunk.lastAccess)) }
                }
            }
            candidates.sort { $0.access < $1.access }
            var freed: Int64 = 0
            var chosen: [(ChunkID, Int)] = []
            for candidate in candidates where freed < excess {
                chosen.append((candidate.id, candidate.length))
                freed += Int64(candidate.length)
            }
            return freed >= excess ? (chosen, true) : ([], false)
        }
        guard fits else { return false }
        guard !victims.isEmpty else { return true }
        let byResource = Dictionary(grouping: victims, by: { $0.0.hash })
        for (hash, chunks) in byResource {
            guard var record = state.withLock({ $0.resources[hash]?.record }) else { continue }
            for (id, _) in chunks { record.chunks[id.index] = nil }
            try writeRecordLocked(record, hash: hash)
        }
        for (id, _) in victims { try POSIX.unlink(chunkPath(id)) }
        state.withLock { $0.evictedChunks += victims.count }
        return true
    }

    static func validate(key: String) throws {
        guard !key.isEmpty else { throw StorageError(.invalidArgument, "an empty cache key") }
    }
}
