#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

extension ChunkStore {
    /// What ``verify()`` found.
    public struct VerifyReport: Sendable, Equatable {
        /// Resources whose chunks were checked.
        public var resources = 0
        /// Chunks re-read.
        public var checked = 0
        /// Chunks whose file was missing, of the wrong length, or failed its checksum.
        public var corrupt = 0
        /// Corrupt chunks unclaimed and deleted (all of them, unless another process replaced the
        /// resource meanwhile).
        public var removed = 0
        /// One line per corrupt chunk: the resource's key, the chunk and what was wrong.
        public var problems: [String] = []

        /// An empty report: nothing checked, nothing found.
        public init() {}
    }

    /// What ``prune(maxBytes:maxAge:)`` removed.
    public struct PruneReport: Sendable, Equatable {
        /// Resources removed whole (stored longer ago than the age limit).
        public var resources = 0
        /// Chunks removed, of those resources and by the byte budget.
        public var chunks = 0
        /// Bytes of the chunks removed.
        public var bytes: Int64 = 0
    }

    /// Re-reads every claimed chunk and checks it against its record: the file is there, has the
    /// length the record claims and, when the record keeps one, the same SHA-256. A chunk that
    /// fails is unclaimed (the record is rewritten without it) and deleted, so that it is never
    /// served and a later read fetches it again. Chunks other processes store meanwhile may be
    /// missed. Blocking; reads every chunk once.
    public func verify() throws -> VerifyReport {
        try checkOpen()
        try syncIfChanged()
        var report = VerifyReport()
        let resources = state.withLock { $0.resources.map { ($0.key, $0.value.record) } }
        var bad: [String: [(index: Int, chunk: ChunkRecord.Chunk)]] = [:]
        for (hash, record) in resources {
            report.resources += 1
            for (index, chunk) in record.chunks.sorted(by: { $0.key < $1.key }) {
                report.checked += 1
                let path = chunkPath(ChunkID(hash: hash, generation: record.generation, index: index))
                guard let problem = try problem(with: chunk, at: path) else { continue }
                report.corrupt += 1
                report.problems.append("\(record.key): chunk \(index): \(problem)")
                bad[hash, default: []].append((index, chunk))
            }
        }
        guard !bad.isEmpty else { return report }
        try lock.withLock {
            try syncLocked()
            for (hash, chunks) in bad {
                guard var record = state.withLock({ $0.resources[hash]?.record }),
                      let checked = resources.first(where: { $0.0 == hash })?.1, record.generation == checked.generation
                else { continue }  // replaced or removed meanwhile: those chunks are gone already
                var dropped: [Int] = []
                for (index, chunk) in chunks where record.chunks[index]?.length == chunk.length && record.chunks[index]?.checksum == chunk.checksum {
                    record.chunks[index] = nil
                    dropped.append(index)
                }
                guard !dropped.isEmpty else { continue }
                try writeRecordLocked(record, hash: hash)
                for index in dropped {
                    _ = try POSIX.unlink(chunkPath(ChunkID(hash: hash, generation: record.generation, index: index)))
                }
                report.removed += dropped.count
            }
            try bumpCounter()
        }
        return report
    }

    /// What is wrong with the chunk file at `path`, or nil when it matches `chunk`.
    private func problem(with chunk: ChunkRecord.Chunk, at path: String) throws -> String? {
        guard let fd = try POSIX.openIfExists(path) else { return "the chunk file is missing" }
        defer { POSIX.close(fd) }
        let size = Int(try POSIX.fstat(fd, path).st_size)
        guard size == chunk.length else { return "\(size) bytes, the record says \(chunk.length)" }
        guard let expected = chunk.checksum else { return nil }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: min(size, 1 << 20))
        var offset = 0
        while offset < size {
            let n = try buffer.withUnsafeMutableBytes { raw -> Int in
                let count = min(raw.count, size - offset)
                while true {
                    let n = pread(fd, raw.baseAddress, count, off_t(offset))
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { throw POSIX.error("read", path) }
                    return n
                }
            }
            guard n > 0 else { return "the chunk file ended at byte \(offset) of \(size)" }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += n
        }
        return CacheKeyHash.hex(hasher.finalize()) == expected ? nil : "checksum mismatch"
    }

    /// Removes the resources stored longer ago than `maxAge` seconds (by their record's creation
    /// date), then the least recently used chunks until at most `maxBytes` remain (by default the
    /// configured budget). A chunk this process is reading is never removed: when such chunks keep
    /// the store over `maxBytes`, nothing is removed by size.
    @discardableResult
    public func prune(maxBytes: Int64? = nil, maxAge: TimeInterval? = nil) throws -> PruneReport {
        try checkOpen()
        return try lock.withLock {
            try syncLocked()
            var report = PruneReport()
            let before = state.withLock { s in (s.resources.values.reduce(0) { $0 + $1.record.chunks.count }, s.totalBytes) }
            if let maxAge {
                let cutoff = configuration.clock.now.addingTimeInterval(-maxAge)
                let old = state.withLock { $0.resources.filter { $0.value.record.createdDate < cutoff }.map(\.key) }
                for hash in old { try removeLocked(hash: hash) }
                report.resources = old.count
            }
            _ = try makeRoomLocked(for: 0, budget: max(0, maxBytes ?? configuration.maxBytes))
            let after = state.withLock { s in (s.resources.values.reduce(0) { $0 + $1.record.chunks.count }, s.totalBytes) }
            report.chunks = before.0 - after.0
            report.bytes = before.1 - after.1
            if report.chunks > 0 || report.resources > 0 { try bumpCounter() }
            return report
        }
    }
}
