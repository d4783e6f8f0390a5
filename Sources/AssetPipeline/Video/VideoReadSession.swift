import AssetLoading
import AssetStorage
import AsyncHTTPClient
import Foundation

/// One range read in progress: walks the range chunk by chunk, reading present chunks from the
/// store, waiting for chunks other reads are fetching, and fetching runs of missing chunks; or,
/// when the disk cache holds the whole resource, reads it from there and nothing else.
///
/// Used by one task at a time (the stream's iterator); it holds no lock across an `await`.
final class VideoReadSession {
    let util: VideoUtil
    let url: String
    let key: String
    let requested: VideoByteRange
    /// Origin requests are windows of `readAheadChunks` (a streamed read), not whole runs.
    let windowed: Bool
    let statistics: StatisticsBox
    let chunkSize: Int

    private var started = false
    private var finished = false
    /// The version whose bytes this read hands out (nil until the first response or record).
    var version: VideoVersion? {
        didSet { statistics.setResource(version?.info) }
    }
    /// The stored record is stale: confirm it with the origin before serving it.
    var needsValidation = false
    /// The next byte to hand out, and the end of the range once known.
    var position: Int64 = 0
    var end: Int64?
    /// Bytes handed out so far: once non-zero, a new version can no longer be adopted.
    var yielded: Int64 = 0
    var fetch: ChunkFetch?
    /// The next chunk of the window, read from `fetch` as soon as the one before was handed out
    /// (``readAhead(after:)``): its index and the task reading it. The fetch is used by one task
    /// at a time, so every other use of it waits for this task first.
    private var ahead: (index: Int, task: Task<Result<ChunkFetch.Outcome, any Error>, Never>)?
    /// The whole copy in the disk cache this read is served from, when there is one (then the
    /// chunk store is not used).
    var wholeCopy: DiskCache.DataFile?

    init(util: VideoUtil, url: String, range: VideoByteRange, windowed: Bool, statistics: StatisticsBox) {
        self.util = util
        self.url = url
        self.key = VideoUtil.cacheKey(for: url)
        self.requested = range
        self.windowed = windowed
        self.statistics = statistics
        self.chunkSize = util.store.configuration.chunkSize
    }

    /// A read dropped before its end (its client left) keeps what its request brings: the
    /// window to its end when windowed, else the chunks whose bytes have come.
    deinit {
        guard let fetch else { return }
        if let ahead {
            let windowed = self.windowed
            Task { _ = await ahead.task.value; fetch.finishAndClose(throughRun: windowed) }
        } else {
            fetch.finishAndClose(throughRun: windowed)
        }
    }

    /// The next buffer of the range, or nil at its end.
    func next() async throws -> Data? {
        guard !finished else { return nil }
        do {
            if !started {
                started = true
                try await start()
            }
            while true {
                if let end, position >= end {
                    finish()
                    return nil
                }
                if let data = try await step() { return data }
            }
        } catch {
            finish()
            throw Self.mapped(error, url: url)
        }
    }

    private func finish() {
        finished = true
        if let fetch, let ahead {
            Task { _ = await ahead.task.value; fetch.close() }
        } else {
            fetch?.close()
        }
        fetch = nil
        ahead = nil
        wholeCopy = nil
    }

    /// Reads the window's chunk after `index` from the fetch at once, without waiting for this
    /// read's client to take the bytes before it: the origin is sending them anyway, and another
    /// read that waits for that chunk (a seek, a second client) must not wait on this client's pace
    /// (one that stops reading would hold it until the write timeout).
    private func readAhead(after index: Int) {
        guard windowed, let fetch, fetch.covers(index + 1) else { return }
        let task = Task { () -> Result<ChunkFetch.Outcome, any Error> in
            do { return .success(try await fetch.deliver(chunk: index + 1)) } catch { return .failure(error) }
        }
        ahead = (index + 1, task)
    }

    // MARK: start

    private func start() async throws {
        try requested.validate()
        if case .bounded(let range) = requested, range.isEmpty {
            (position, end) = (range.lowerBound, range.lowerBound)
            return
        }
        if try await openWholeCopy() { return }
        let (store, key) = (util.store, key)
        if let record = try await util.runIO({ try store.record(forKey: key) }) {
            switch freshness(of: record) {
            case .use:
                version = VideoVersion(record: record)
            case .validate:
                version = VideoVersion(record: record)
                needsValidation = true
            case .drop:
                _ = try await util.runIO { try store.removeResource(forKey: key) }
            }
        }
        if let total = version?.info.totalLength {
            try applyLength(total)
        } else if let start = requested.knownStart {
            position = start
            if case .bounded(let range) = requested { end = range.upperBound }
        } else {
            try await probeLength()
        }
        if needsValidation, let version, let end, position < end {
            let first = Int(position / Int64(chunkSize))
            let record = try await util.runIO { try store.record(forKey: key) }
            // a fetch of the first chunk validates by its If-Range; a stored first chunk needs a request
            if record?.generation == version.generation, record?.contains(chunk: first) == true {
                try await validate()
            }
        }
    }

    enum Freshness { case use, validate, drop }

    /// What RFC 9111 allows for the stored record: serve it, validate it first, or drop it.
    private func freshness(of record: ChunkRecord) -> Freshness {
        let hasValidator = record.info.eTag != nil || record.info.lastModified != nil
        guard let stored = record.storedResponse else { return hasValidator ? .validate : .drop }
        return freshness(of: stored)
    }

    /// What RFC 9111 allows for a stored response: serve it, validate it first, or drop it.
    func freshness(of stored: StoredResponse) -> Freshness {
        switch util.policy.decide(stored: stored, request: HeaderFields(), now: util.clock.now) {
        case .fresh, .staleAllowed, .staleWhileRevalidate: return .use
        case .mustRevalidate: return .validate
        case .unusable, .gatewayTimeout: return .drop
        }
    }

    /// Resolves the range against the now known length (clipping, or throwing when no byte of
    /// it exists) and records the length.
    func applyLength(_ total: Int64) throws {
        let resolved = try requested.resolve(length: total)
        if yielded == 0 { position = resolved.lowerBound }
        end = resolved.upperBound
        statistics.update {
            $0.totalLength = total
            $0.range = resolved
        }
    }

    /// Takes `candidate` as the version to serve: a refresh of the same generation, or a new
    /// version when nothing was handed out yet; otherwise the read cannot go on.
    func adopt(_ candidate: VideoVersion) throws {
        if let version, version.generation == candidate.generation {
            let learned = version.info.totalLength == nil ? candidate.info.totalLength : nil
            self.version = candidate
            if let learned { try applyLength(learned) }
            return
        }
        guard yielded == 0 else {
            throw VideoError(.resourceChanged, "\(url) changed after \(yielded) bytes of the old version were read; its chunks were dropped")
        }
        version = candidate
        if let total = candidate.info.totalLength { try applyLength(total) }
    }

    // MARK: the walk

    /// Hands out the chunk under ``position`` from wherever it is, or starts the fetch that will
    /// bring it (then returns nil and is called again).
    private func step() async throws -> Data? {
        if let wholeCopy { return try await readWholeCopy(wholeCopy) }
        let index = Int(position / Int64(chunkSize))
        if let fetch {
            var outcome: ChunkFetch.Outcome?
            if let ahead {
                self.ahead = nil
                let result = await ahead.task.value
                if ahead.index == index { outcome = try result.get() }
            }
            if outcome != nil || fetch.covers(index) {
                let outcome = if let outcome { outcome } else { try await fetch.deliver(chunk: index) }
                try adopt(fetch.version)
                if !fetch.covers(index + 1) { self.fetch = nil } else { readAhead(after: index) }
                switch outcome {
                case .chunk(let delivery): return slice(delivery.data, chunk: index, source: nil)
                case .ended:
                    self.fetch = nil
                    if end == nil { end = position }
                    return nil
                }
            }
            fetch.close()
            self.fetch = nil
        }
        // in-flight first, then the store: a fetch stores a chunk before it forgets its claim, so
        // a chunk missed by both lookups is neither stored nor being fetched
        if let signal = util.inFlight.signal(key: key, index: index) {
            let delivery: ChunkDelivery
            do {
                delivery = try await signal.wait()
            } catch let error as CancellationError {
                throw error
            } catch {
                return nil  // that fetch failed or stopped: look again (and fetch it ourselves)
            }
            try adopt(delivery.version)
            return slice(delivery.data, chunk: index, source: \.bytesFromSharedFetches)
        }
        if let version, version.stored, let data = try await readStored(index, version: version) {
            return data
        }
        try await startFetch(at: index)
        return nil
    }

    /// The part of stored chunk `index` the range wants, or nil when it is not stored whole.
    private func readStored(_ index: Int, version: VideoVersion) async throws -> Data? {
        let chunkStart = Int64(index) * Int64(chunkSize)
        var within: Range<Int>?
        if let end, let total = version.info.totalLength {
            let chunkEnd = min(chunkStart + Int64(chunkSize), total)
            within = Int(position - chunkStart)..<Int(min(end, chunkEnd) - chunkStart)
        }
        let (store, key, generation, range) = (util.store, key, version.generation, within)
        guard let data = try await util.runIO({
            try store.readChunk(forKey: key, generation: generation, index: index, range: range)
        }) else { return nil }
        if within != nil {
            hand(data.count, source: \.bytesFromCache)
            return data
        }
        return slice(data, chunk: index, source: \.bytesFromCache)
    }

    /// The bytes of a whole chunk that the range wants from ``position`` on; counts them
    /// (`source` nil: this read's own fetch, whose body bytes the fetch counts).
    private func slice(_ chunk: Data, chunk index: Int, source: WritableKeyPath<VideoReadStatistics, Int64>?) -> Data? {
        let chunkStart = Int64(index) * Int64(chunkSize)
        let from = Int(position - chunkStart)
        let to = end.map { Int(min($0 - chunkStart, Int64(chunk.count))) } ?? chunk.count
        guard from < to else {
            if end == nil { end = position }  // the resource ended inside this chunk
            return nil
        }
        let part = from == 0 && to == chunk.count ? chunk : chunk.subdata(in: from..<to)
        hand(part.count, source: source)
        return part
    }

    /// Moves past `count` handed-out bytes and counts where they came from.
    private func hand(_ count: Int, source: WritableKeyPath<VideoReadStatistics, Int64>?) {
        position += Int64(count)
        yielded += Int64(count)
        statistics.update {
            $0.bytes += Int64(count)
            if let source { $0[keyPath: source] += Int64(count) }
        }
    }

    static func mapped(_ error: any Error, url: String) -> VideoError {
        switch error {
        case let error as VideoError: return error
        case is CancellationError: return VideoError(.cancelled, "the read of \(url) was cancelled")
        case let error as StorageError: return VideoError(.storage, error.message, underlying: error)
        default: return VideoError.network(url, error)
        }
    }
}

extension ChunkRecord {
    /// The stored exchange as the freshness rules take it.
    var storedResponse: StoredResponse? {
        guard let http = info.http else { return nil }
        return StoredResponse(
            status: http.status, headers: HeaderFields(http.headers.map { ($0.name, $0.value) }),
            requestTime: http.requestTime, responseTime: http.responseTime)
    }
}
