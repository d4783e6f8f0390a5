import AssetVideoFrames
import AssetWorkers
import Dispatch
import Foundation
import Synchronization

/// A video frame and what reading the video for it cost.
public struct VideoFrameRead: Sendable {
    /// The frame.
    public var frame: VideoFrame
    /// The reads' costs added up: bytes from the cache and from the origin, origin requests.
    public var statistics: VideoReadStatistics
}

extension VideoUtil {
    /// The frame of the video at `url` at `time` (the first frame by default), at `size`, as
    /// straight RGBA (alpha 255).
    ///
    /// FFmpeg's libraries read the container through this util's ranges: its index (wherever it
    /// is: an MP4's `moov` at the start or the end, a WebM's cues), then the packets from the key
    /// frame before the time up to the frame. Each read is a range through the chunk store, so
    /// only the chunks those bytes fall in are fetched, once, and kept like any other range; a
    /// second frame of the same video costs the origin only the chunks not stored yet. The frame
    /// is the one `ffmpeg -ss T -i FILE -frames:v 1` gives, converted with the same scaler.
    ///
    /// With ``Configuration/frameWorkers`` the decode runs in a worker process; otherwise on a
    /// thread of its own in this one. The frame itself is not cached.
    ///
    /// ```swift
    /// let poster = try await video.frame(for: url, at: .progress(0.5), size: VideoFrameSize(width: 320))
    /// print(poster.bitmap.width, poster.time)
    /// ```
    /// - Throws: `VideoError` for the reads (as ``read(for:byteRange:)``), then `VideoFrameError`
    ///   (`notAVideo`, `noVideoStream`, `unsupportedCodec`, `frameOutOfRange`, `decodeFailed`,
    ///   `tooLarge`, `tooManyPackets`; `renderFailed` when a worker crashed, ran past its time or
    ///   could not be started).
    public func frame(
        for url: URL, at time: VideoFrameTime = .first, size: VideoFrameSize = .natural
    ) async throws -> VideoFrame {
        try await readFrame(for: url, at: time, size: size).frame
    }

    /// ``frame(for:at:size:)`` with what its reads cost.
    public func readFrame(
        for url: URL, at time: VideoFrameTime = .first, size: VideoFrameSize = .natural
    ) async throws -> VideoFrameRead {
        try await readFrame(address: url.absoluteString, at: time, size: size, limits: configuration.frameDecoder)
    }

    /// ``readFrame(for:at:size:)`` by the URL's text, under `limits` (a caller's own pixel budget).
    package func readFrame(
        address: String, at time: VideoFrameTime, size: VideoFrameSize, limits: VideoFrameDecoder.Configuration
    ) async throws -> VideoFrameRead {
        let (frame, statistics) = try await decodeByRange(
            address: address,
            inWorker: { workers, total, reads in
                try await VideoFrameJob.run(on: workers, sourceSize: total, at: time, size: size, limits: limits, reads: reads)
            },
            here: { source in try VideoFrameDecoder(configuration: limits).decode(source, at: time, size: size) })
        return VideoFrameRead(frame: frame, statistics: statistics)
    }

    /// What a decoder makes of the video at `address` read by range through the chunk store (a
    /// ``FrameSourceReader`` over this util's ranges): `inWorker` in a worker of
    /// ``Configuration/frameWorkers`` when there are some, else `here` on a thread of its own (the
    /// decode blocks on its reads: never on the cooperative pool, which serves them). A read of
    /// ours that failed is the error thrown, whatever the decoder made of it.
    package func decodeByRange<T: Sendable>(
        address: String, inWorker: (WorkerPool, Int64, @escaping WorkerPool.Reads) async throws -> T,
        here: @escaping @Sendable (VideoFrameSource) throws -> T
    ) async throws -> (T, VideoReadStatistics) {
        let window = Int64(max(64 << 10, store.configuration.chunkSize))
        // the first window: the container's head, and the resource's length
        let first = try await read(address: address, byteRange: .bounded(0..<window))
        guard let total = first.statistics.totalLength else {
            throw VideoError(.invalidResponse, "the origin did not tell the video's length")
        }
        let reader = FrameSourceReader(util: self, address: address, window: window, size: total, first: first)
        let result: Result<T, any Error>
        if let workers = configuration.frameWorkers {
            do {
                result = .success(try await inWorker(workers, total) { offset, count in reader.read(offset: offset, count: count) })
            } catch {
                result = .failure(error)
            }
        } else {
            let source = VideoFrameSource(size: total) { offset, count in reader.read(offset: offset, count: count) }
            result = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: Result { try here(source) }) }.start()
            }
        }
        switch result {
        case .success(let value): return (value, reader.statistics)
        case .failure(let error):
            if let failure = reader.failure { throw failure }
            throw error
        }
    }
}

/// The decoder's view of a video: positional reads, answered from one window read through the
/// util: a chunk, or up to `maxRun` (8 by default) when the reads go straight on. It blocks its caller (the decoding thread, or the worker
/// pool's exchange thread) while a window is read on the cooperative pool.
final class FrameSourceReader: Sendable {
    private struct State {
        var start: Int64
        var bytes: Data
        var statistics: VideoReadStatistics
        var failure: (any Error)?
        /// The chunks the next sequential window spans.
        var run: Int64 = 1
    }

    private let util: VideoUtil
    private let address: String
    private let window: Int64
    private let size: Int64
    private let maxRun: Int64
    private let state: Mutex<State>

    init(util: VideoUtil, address: String, window: Int64, size: Int64, first: VideoReadResult, maxRun: Int64 = 8) {
        self.util = util
        self.maxRun = max(1, maxRun)
        self.address = address
        self.window = window
        self.size = size
        state = Mutex(State(start: 0, bytes: first.data, statistics: first.statistics))
    }

    /// The first read that failed, as the util threw it.
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// The reads' costs added up.
    var statistics: VideoReadStatistics { state.withLock { $0.statistics } }

    /// Up to `count` bytes at `offset`, at most to the end of the window they start in.
    func read(offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        if offset >= size || count == 0 { return [] }
        if let bytes = state.withLock({ Self.slice($0, offset, count) }) { return bytes }
        // a read where the last window ended is the decoder going through packets: the window
        // doubles (to `maxRun` chunks), so a run of packets costs a few requests, not one per chunk
        let start = offset / window * window
        let length = state.withLock { state -> Int64 in
            let sequential = state.start + Int64(state.bytes.count) == start
            state.run = sequential ? min(state.run * 2, maxRun) : 1
            return window * state.run
        }
        let range = start..<min(size, start + length)
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<VideoReadResult, any Error>?>(nil)
        let (util, address) = (self.util, self.address)
        Task {
            let result: Result<VideoReadResult, any Error>
            do {
                result = .success(try await util.read(address: address, byteRange: .bounded(range)))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            semaphore.signal()
        }
        semaphore.wait()
        return state.withLock { state -> [UInt8]? in
            switch outcome.withLock({ $0 }) {
            case .success(let read):
                state.statistics.bytes += read.statistics.bytes
                state.statistics.bytesFromCache += read.statistics.bytesFromCache
                state.statistics.bytesFromDiskCache += read.statistics.bytesFromDiskCache
                state.statistics.bytesFromOrigin += read.statistics.bytesFromOrigin
                state.statistics.bytesFromSharedFetches += read.statistics.bytesFromSharedFetches
                state.statistics.originRequests += read.statistics.originRequests
                if let status = read.statistics.status { state.statistics.status = status }
                state.start = range.lowerBound
                state.bytes = read.data
                return Self.slice(state, offset, count)
            case .failure(let error):
                if state.failure == nil { state.failure = error }
                return nil
            case nil:
                return nil
            }
        }
    }

    private static func slice(_ state: State, _ offset: Int64, _ count: Int) -> [UInt8]? {
        let end = state.start + Int64(state.bytes.count)
        guard offset >= state.start, offset < end else { return nil }
        let from = Int(offset - state.start)
        let to = Int(min(end, offset + Int64(count)) - state.start)
        let base = state.bytes.startIndex
        return [UInt8](state.bytes[(base + from)..<(base + to)])
    }
}
