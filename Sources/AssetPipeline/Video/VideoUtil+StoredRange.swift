import AssetLoading
import AssetStorage
import Foundation

extension VideoUtil {
    /// A range whose every chunk is stored and fresh, open for sending from the chunk files.
    public struct StoredRange: Sendable {
        /// One chunk's part of the range.
        public struct Piece: Sendable {
            /// The open chunk file; it stays readable if the chunk is evicted or replaced meanwhile.
            public var file: ChunkStore.ChunkFile
            /// The bytes of the chunk file to send.
            public var bytes: Range<Int>
        }

        /// What the origin said of the resource (validators, content type, cache directives).
        public var info: ChunkRecord.ResourceInfo
        /// The resource's total length in bytes.
        public var totalLength: Int64
        /// The bytes of the resource the pieces hold, in order.
        public var range: Range<Int64>
        /// The chunks' parts of the range, in order; together they cover ``range``.
        public var pieces: [Piece]
    }

    /// The most chunks ``storedRange(for:range:)`` opens at once.
    public static let maxStoredRangeChunks = 32

    /// The stored chunk files of `range` of `url` when the record is fresh by the freshness rules and
    /// every chunk the range covers (at most ``maxStoredRangeChunks``) is whole on disk; nil when any
    /// part needs the network or revalidation (read through ``stream(for:range:)`` then). Counts as an
    /// access to each chunk.
    ///
    /// - Throws: ``VideoError`` with ``VideoError/Code/rangeNotSatisfiable`` for a range past the end.
    public func storedRange(for url: URL, range: VideoByteRange) async throws -> StoredRange? {
        try await storedRange(address: url.absoluteString, range: range)
    }

    /// ``storedRange(for:range:)`` by the URL's text.
    package func storedRange(address url: String, range: VideoByteRange) async throws -> StoredRange? {
        try range.validate()
        return try await runIO { [self] () throws -> StoredRange? in try storedRangeNow(address: url, range: range) }
    }

    /// ``storedRange(for:range:)`` on the calling thread: in-memory lookups and, per chunk, an `open`
    /// and an `fstat` of its file (what the server's event loop does for a hot range, as nginx opens
    /// files on its event loop). Throws the store's errors as they are.
    package func storedRangeNow(address url: String, range: VideoByteRange) throws -> StoredRange? {
        try range.validate()
        let (store, key, policy, clock) = (self.store, Self.cacheKey(for: url), self.policy, self.clock)
        guard let record = try store.record(forKey: key), let total = record.info.totalLength,
            let stored = record.storedResponse,
            case .fresh = policy.decide(stored: stored, request: HeaderFields(), now: clock.now)
        else { return nil }
        let resolved = try range.resolve(length: total)
        guard !resolved.isEmpty else { return StoredRange(info: record.info, totalLength: total, range: resolved, pieces: []) }
        let size = Int64(record.chunkSize)
        let first = Int(resolved.lowerBound / size), last = Int((resolved.upperBound - 1) / size)
        guard last - first < Self.maxStoredRangeChunks else { return nil }
        var pieces: [StoredRange.Piece] = []
        for index in first...last {
            guard let file = try store.openChunk(forKey: key, generation: record.generation, index: index) else { return nil }
            let chunkStart = Int64(index) * size
            let from = Int(max(resolved.lowerBound, chunkStart) - chunkStart)
            let to = Int(min(resolved.upperBound, chunkStart + Int64(file.length)) - chunkStart)
            guard from < to else { return nil }
            pieces.append(StoredRange.Piece(file: file, bytes: from..<to))
        }
        guard pieces.reduce(0, { $0 + $1.bytes.count }) == resolved.count else { return nil }
        return StoredRange(info: record.info, totalLength: total, range: resolved, pieces: pieces)
    }
}
