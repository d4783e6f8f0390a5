#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension ChunkStore {
    /// What the store holds.
    public struct Statistics: Sendable, Equatable {
        /// The number of resources with a record.
        public var resources: Int
        /// The number of chunks on disk.
        public var chunks: Int
        /// The bytes of all chunks on disk.
        public var bytes: Int64
        /// Chunks this process evicted to keep the budget since the store opened.
        public var evictedChunks: Int
    }

    /// The record of `key` (re-read first when another process changed the directory), or `nil`.
    public func record(forKey key: String) throws -> ChunkRecord? {
        try Self.validate(key: key)
        try checkOpen()
        try syncIfChanged()
        let hash = CacheKeyHash.fileName(for: key)
        return state.withLock { $0.resources[hash]?.record }
    }

    /// The bytes `range` (within the chunk; all of it when nil) of chunk `index` of version
    /// `generation` of `key`, or `nil` when that chunk of that version is not whole on disk.
    ///
    /// The chunk is pinned while it is read, so that no write in this process evicts it, and
    /// its access time is updated in memory.
    public func readChunk(forKey key: String, generation: UInt64, index: Int, range: Range<Int>? = nil) throws -> Data? {
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        let id = ChunkID(hash: hash, generation: generation, index: index)
        let length: Int? = state.withLock { s in
            guard let resource = s.resources[hash], resource.record.generation == generation,
                  let chunk = resource.record.chunks[index] else { return nil }
            s.pins[id, default: 0] += 1
            return chunk.length
        }
        guard let length else { return nil }
        defer { unpin(id) }
        let range = range ?? 0..<length
        guard range.lowerBound >= 0, range.upperBound <= length else {
            throw StorageError(.invalidArgument, "bytes \(range) are outside chunk \(index) of \(length) bytes")
        }
        let path = chunkPath(id)
        guard let fd = try POSIX.openIfExists(path) else { return nil }
        defer { POSIX.close(fd) }
        guard Int(try POSIX.fstat(fd, path).st_size) == length else { return nil }
        var data = Data(count: range.count)
        let got = try data.withUnsafeMutableBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                let n = pread(fd, buffer.baseAddress! + offset, buffer.count - offset, off_t(range.lowerBound + offset))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw POSIX.error("read", path)
                }
                if n == 0 { break }
                offset += n
            }
            return offset
        }
        guard got == range.count else { return nil }
        let now = configuration.clock.now.timeIntervalSince1970
        state.withLock { s in
            guard s.resources[hash]?.record.generation == generation, s.resources[hash]?.record.chunks[index] != nil else { return }
            s.resources[hash]!.record.chunks[index]!.lastAccess = now
            s.resources[hash]!.accessDirty = true
        }
        return data
    }

    private func unpin(_ id: ChunkID) {
        state.withLock { s in
            if let n = s.pins[id], n > 1 { s.pins[id] = n - 1 } else { s.pins[id] = nil }
        }
    }

    /// Temporary files, unclaimed chunk files, unreadable records and claims of missing or
    /// wrong-sized chunks that opening the store removed.
    public var repairedAtOpen: Int { state.withLock { $0.repairedAtOpen } }

    /// Bytes of chunk data held (as this process last saw the directory).
    public var totalBytes: Int64 { state.withLock { $0.totalBytes } }

    /// Counts of resources, chunks and bytes (re-read first when another process changed them).
    public var statistics: Statistics {
        try? syncIfChanged()
        return state.withLock { s in
            Statistics(
                resources: s.resources.count, chunks: s.resources.values.reduce(0) { $0 + $1.record.chunks.count },
                bytes: s.totalBytes, evictedChunks: s.evictedChunks)
        }
    }

    /// The keys of every stored resource.
    public var keys: [String] {
        try? syncIfChanged()
        return state.withLock { $0.resources.values.map(\.record.key) }
    }

    /// Writes access times recorded in memory to the record files.
    public func flush() throws {
        try checkOpen()
        try writeDirtyRecords(force: false)
    }
}
