import AssetLoading
import AssetStorage
import AssetVideoFrames
import AssetWorkers
import AsyncHTTPClient
import Foundation
import Logging

/// Byte ranges of large media over HTTP, cached as fixed-size chunks in the manager's
/// `ChunkStore`.
///
/// - Where a video's bytes live (one place per asset, never two): a video fetched whole (by
///   `assetpipe prefetch`, ``AssetsManager/load(_:)`` or `assetpipe get`) is one entry of the disk
///   cache, and reads of it are served from that entry with no request (a stale entry is
///   confirmed first with one conditional request for one byte); a video read in ranges, or
///   prefetched as a prefix (`--video-prefix`), is chunks in the chunk store. A whole copy that
///   the origin no longer confirms is removed before chunks of the new version are stored, and a
///   video downloaded whole replaces its chunks.
/// - Present chunks are read from disk; missing ones are fetched with `Range` requests, a run of
///   adjacent missing chunks in one request; readers of a chunk that another read is fetching
///   wait for that fetch instead of sending their own.
/// - The total length comes from `Content-Range` (or a 416's `bytes */LENGTH`); a range past the
///   end is clipped, one wholly past it throws ``VideoError/Code/rangeNotSatisfiable``.
/// - Every range request for a stored resource carries `If-Range` with its strong validator; a
///   200 that shows a new version drops every chunk of the old one and the read goes on from the
///   new response (a streamed read that already handed out old bytes throws
///   ``VideoError/Code/resourceChanged``). Bytes of two versions are never mixed.
/// - An origin that ignores `Range` (always 200) is read from the start, the chunks that pass
///   are stored, and nothing past what the read needs is read.
/// - A stored record is reused by the loader's RFC 9111 freshness rules; a stale one is
///   revalidated (by the `If-Range` of the next fetch, or a conditional request), and a changed
///   validator drops the chunks.
///
/// ```swift
/// let video = VideoUtil(manager: manager)
/// let head = try await video.data(for: url, range: 0..<65_536)
/// for try await piece in video.stream(for: url, range: .from(1 << 20)) { consume(piece) }
/// try await video.prefetch(for: url, head: 1 << 20, tail: 1 << 20)   // moov at either end
/// ```
public final class VideoUtil: Sendable {
    /// How reads fetch.
    public struct Configuration: Sendable {
        /// The most chunks one request asks for in a read collected whole (`data(for:range:)`,
        /// ``VideoUtil/read(for:byteRange:)``, ``VideoUtil/prefetch(for:head:tail:)``); longer runs of
        /// missing chunks take several. Default: 64 (64 MiB at the default chunk size).
        public var maxChunksPerRequest: Int
        /// For a streamed read (``VideoUtil/stream(for:range:)``, what the service answers players
        /// from): each request asks for the chunk at the read's position and at most this many after
        /// it, and the next request goes out when the read gets there. A read dropped before its end
        /// (a player that jumps elsewhere after a few hundred kilobytes) reads its request's window
        /// to the end and keeps it, so it costs the origin at most this many chunks more than the
        /// chunk it was in, as nginx's `slice` costs a slice, and the same jump again costs nothing.
        /// Default: 1.
        public var readAheadChunks: Int
        /// Header fields sent with every request (authorization, a user agent). Default: none.
        public var requestHeaders: [(String, String)]
        /// Worker processes that decode ``VideoUtil/frame(for:at:size:)`` (FFmpeg, a large parser
        /// of hostile input, then runs apart: a crash or a hang ends a worker, not this process).
        /// Their reads of the video come back here and go through the chunk store. Default: nil,
        /// frames decode in this process, each on a thread of its own.
        public var frameWorkers: WorkerPool?
        /// The limits of a frame's decode (pixels, packets, threads). Default: the decoder's.
        public var frameDecoder: VideoFrameDecoder.Configuration

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            maxChunksPerRequest: Int = 64, readAheadChunks: Int = 1, requestHeaders: [(String, String)] = [],
            frameWorkers: WorkerPool? = nil, frameDecoder: VideoFrameDecoder.Configuration = .init()
        ) {
            self.maxChunksPerRequest = maxChunksPerRequest
            self.readAheadChunks = readAheadChunks
            self.requestHeaders = requestHeaders
            self.frameWorkers = frameWorkers
            self.frameDecoder = frameDecoder
        }
    }

    /// How reads fetch: the request size and the extra header fields.
    public let configuration: Configuration
    let manager: AssetsManager
    let store: ChunkStore
    let policy: FreshnessPolicy
    let clock: any CacheClock
    let inFlight = InFlightChunks()
    let logger: Logger

    /// A video util over `manager`'s chunk store, sending through its loader (destination policy, redirects).
    public init(manager: AssetsManager, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "AssetPipeline.VideoUtil")) {
        self.configuration = configuration
        self.manager = manager
        self.store = manager.chunkStore
        self.policy = FreshnessPolicy(configuration: manager.configuration.loader.freshness)
        self.clock = manager.configuration.loader.clock
        self.logger = logger
    }

    /// The cache key of a URL (the loader's: scheme and host lowercased, no fragment).
    public static func cacheKey(for url: String) -> String {
        AssetLoader.defaultCacheKey(for: url)
    }

    // MARK: reads

    /// The bytes `range` of the resource at `url` (clipped to its end).
    public func data(for url: URL, range: Range<Int64>) async throws -> Data {
        try await read(address: url.absoluteString, byteRange: .bounded(range)).data
    }

    /// The bytes from `range.lowerBound` to the end.
    public func data(for url: URL, range: PartialRangeFrom<Int64>) async throws -> Data {
        try await read(address: url.absoluteString, byteRange: .from(range.lowerBound)).data
    }

    /// The last `count` bytes (all of them when the resource is shorter).
    public func data(for url: URL, lastBytes count: Int64) async throws -> Data {
        try await read(address: url.absoluteString, byteRange: .suffix(count)).data
    }

    /// The bytes of `byteRange` and what reading them cost. A resource that changes during the
    /// read is read again once, whole from the new version.
    public func read(for url: URL, byteRange: VideoByteRange) async throws -> VideoReadResult {
        try await read(address: url.absoluteString, byteRange: byteRange)
    }

    /// The bytes of `range` as a sequence of buffers (at most one chunk each), fetched as they
    /// are consumed: memory stays bounded by a few chunks whatever the range's size.
    /// ``VideoByteStream/statistics`` tells the costs after (and during) the iteration.
    public func stream(for url: URL, range: VideoByteRange) -> VideoByteStream {
        stream(address: url.absoluteString, range: range)
    }

    /// Warms the first `head` and the last `tail` bytes (an MP4 keeps its `moov` index at one
    /// end or the other), fetching only missing chunks. Either may be 0. Returns the costs.
    ///
    /// This is what `assetpipe prefetch --video-prefix` calls for a video item: one call, no bytes
    /// kept in memory, the same errors as ``read(for:byteRange:)``. A video the disk cache holds whole
    /// costs nothing (its bytes are read there, and nothing is stored).
    @discardableResult
    public func prefetch(for url: URL, head: Int64, tail: Int64) async throws -> VideoReadStatistics {
        try await prefetch(address: url.absoluteString, head: head, tail: tail)
    }

    /// Drops what is stored of `url`: every chunk, and a whole copy in the disk cache.
    public func removeCached(for url: URL) async throws {
        try await removeCached(address: url.absoluteString)
    }

    /// The stored record of `url` (which chunks are present, the validator, the length), or nil.
    public func cachedRecord(for url: URL) async throws -> ChunkRecord? {
        try await cachedRecord(address: url.absoluteString)
    }

    // MARK: the same by the URL's text, for the package's faces (the list and query strings they read)

    package func read(address url: String, byteRange: VideoByteRange) async throws -> VideoReadResult {
        var earlier = VideoReadStatistics()
        for attempt in 0..<2 {
            let stream = self.stream(address: url, range: byteRange, windowed: false)
            var data = Data()
            do {
                for try await piece in stream { data.append(piece) }
                var statistics = stream.statistics
                statistics.addCosts(of: earlier)
                return VideoReadResult(data: data, statistics: statistics)
            } catch let error as VideoError where error.code == .resourceChanged && attempt == 0 {
                earlier = stream.statistics
            }
        }
        throw VideoError(.resourceChanged, "\(url) changed twice during one read")
    }

    package func stream(address url: String, range: VideoByteRange, windowed: Bool = true) -> VideoByteStream {
        VideoByteStream(util: self, url: url, range: range, windowed: windowed)
    }

    package func prefetch(address url: String, head: Int64, tail: Int64) async throws -> VideoReadStatistics {
        var total = VideoReadStatistics()
        var ranges: [VideoByteRange] = []
        if head > 0 { ranges.append(.bounded(0..<head)) }
        if tail > 0 { ranges.append(.suffix(tail)) }
        for range in ranges {
            let stream = self.stream(address: url, range: range, windowed: false)
            for try await _ in stream {}
            let part = stream.statistics
            total.bytes += part.bytes
            total.bytesFromCache += part.bytesFromCache
            total.bytesFromDiskCache += part.bytesFromDiskCache
            total.bytesFromSharedFetches += part.bytesFromSharedFetches
            total.addCosts(of: part)
            total.status = part.status ?? total.status
            total.totalLength = part.totalLength ?? total.totalLength
        }
        return total
    }

    package func removeCached(address url: String) async throws {
        let (store, disk) = (self.store, manager.diskCache)
        let key = Self.cacheKey(for: url)
        try await manager.runIO {
            _ = try store.removeResource(forKey: key)
            _ = try disk.remove(key: key)
        }
    }

    package func cachedRecord(address url: String) async throws -> ChunkRecord? {
        let store = self.store
        let key = Self.cacheKey(for: url)
        return try await manager.runIO { try store.record(forKey: key) }
    }

    /// Runs chunk-store work on the manager's I/O threads, mapping storage errors.
    func runIO<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await manager.runIO(body)
        } catch let error as StorageError {
            throw VideoError(.storage, error.message, underlying: error)
        }
    }
}
