#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension ChunkStore {
    /// A stored chunk's file, open, for sending it out without reading it into memory (`sendfile`):
    /// the descriptor stays valid after the chunk is evicted or replaced, and is closed when the value
    /// is released.
    public final class ChunkFile: Sendable {
        /// The chunk's length in bytes.
        public let length: Int
        let fd: Int32

        init(fd: Int32, length: Int) {
            self.fd = fd
            self.length = length
        }

        deinit { POSIX.close(fd) }

        /// A new descriptor of the same open file, owned by the caller (who closes it).
        public func duplicateDescriptor() throws -> Int32 {
            let copy = dup(fd)
            guard copy >= 0 else { throw POSIX.error("dup", "a chunk file") }
            return copy
        }
    }

    /// Whether this process's view of the store has a record for `key`: a cheap check, with no
    /// file read (another process's changes show after the next ``record(forKey:)``).
    public func hasResource(forKey key: String) -> Bool {
        let hash = CacheKeyHash.fileName(for: key)
        return state.withLock { $0.resources[hash] != nil }
    }

    /// The file of chunk `index` of version `generation` of `key`, or nil when that chunk of that
    /// version is not whole on disk. Counts as an access, as ``readChunk(forKey:generation:index:range:)``.
    public func openChunk(forKey key: String, generation: UInt64, index: Int) throws -> ChunkFile? {
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
        defer {
            state.withLock { s in
                if let n = s.pins[id], n > 1 { s.pins[id] = n - 1 } else { s.pins[id] = nil }
            }
        }
        let path = chunkPath(id)
        guard let fd = try POSIX.openIfExists(path) else { return nil }
        guard Int(try POSIX.fstat(fd, path).st_size) == length else {
            POSIX.close(fd)
            return nil
        }
        let now = configuration.clock.now.timeIntervalSince1970
        state.withLock { s in
            guard s.resources[hash]?.record.generation == generation, s.resources[hash]?.record.chunks[index] != nil else { return }
            s.resources[hash]!.record.chunks[index]!.lastAccess = now
            s.resources[hash]!.accessDirty = true
        }
        return ChunkFile(fd: fd, length: length)
    }
}
