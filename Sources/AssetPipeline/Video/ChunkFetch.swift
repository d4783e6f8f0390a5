import AssetLoading
import AssetStorage
import AsyncHTTPClient
import Foundation
import NIOCore

/// One response body being cut into chunks: bytes are read only as a read asks for the next
/// chunk, each whole chunk is stored (when the version may be stored) and handed to the readers
/// waiting for it. Chunks before the one asked for (a 200 read from the start) are stored as
/// they pass; nothing is read past the run's last chunk.
///
/// Used by one task at a time: the read's, or, once the read let go of it, the task that
/// finishes what its request brings (``finishAndClose(throughRun:)``); hence `@unchecked Sendable`.
final class ChunkFetch: @unchecked Sendable {
    /// What the next ``deliver(chunk:)`` found.
    enum Outcome {
        case chunk(ChunkDelivery)
        /// The body ended before that chunk (the resource is shorter).
        case ended
    }

    let util: VideoUtil
    let key: String
    let chunkSize: Int
    /// The version the body belongs to; its length is filled in when an unknown-length body ends.
    private(set) var version: VideoVersion
    private var iterator: HTTPClientResponse.Body.AsyncIterator?
    /// The absolute offset of the next body byte.
    private var offset: Int64
    /// Where the body must end (from `Content-Range` or `Content-Length`), when announced.
    private let bodyEnd: Int64?
    /// Bytes of the chunk being assembled, which starts at `offset - pending.count`.
    private var pending = Data()
    private var claims: [Int: ChunkSignal]
    /// The fetch stops after chunk `runEnd - 1`.
    private(set) var runEnd: Int
    private let statistics: StatisticsBox
    /// When the exchange must be over, body included (the loader's total timeout): checked as each
    /// piece arrives, so a body that trickles in stops there.
    private let deadline: NIODeadline

    init(
        util: VideoUtil, key: String, version: VideoVersion, body: HTTPClientResponse.Body, start: Int64,
        bodyEnd: Int64?, claims: [Int: ChunkSignal], runEnd: Int, statistics: StatisticsBox, deadline: NIODeadline
    ) {
        self.util = util
        self.key = key
        self.chunkSize = util.store.configuration.chunkSize
        self.version = version
        self.iterator = body.makeAsyncIterator()
        self.offset = start
        self.bodyEnd = bodyEnd
        self.claims = claims
        self.runEnd = runEnd
        self.statistics = statistics
        self.deadline = deadline
        pending.reserveCapacity(chunkSize)
    }

    deinit { abandon(with: CancellationError()) }

    /// The chunk being assembled now.
    var currentChunk: Int { Int((offset - Int64(pending.count)) / Int64(chunkSize)) }

    /// Whether chunk `index` is still ahead in this body.
    func covers(_ index: Int) -> Bool {
        iterator != nil && index >= currentChunk && index < runEnd
    }

    /// Reads on until chunk `index` is whole, storing and handing out the chunks before it.
    func deliver(chunk index: Int) async throws -> Outcome {
        while true {
            let current = currentChunk
            let currentStart = Int64(current) * Int64(chunkSize)
            var need = chunkSize
            if let total = version.info.totalLength {
                guard currentStart < total else {
                    close()
                    return .ended
                }
                need = Int(min(Int64(chunkSize), total - currentStart))
            }
            if pending.count >= need {
                let data = pending.count == need ? pending : Data(pending.prefix(need))
                pending = pending.count == need ? Data() : Data(pending.dropFirst(need))
                pending.reserveCapacity(chunkSize)
                let delivery = try await complete(current, data)
                if current + 1 >= runEnd { close() }
                if current >= index { return .chunk(delivery) }
                continue
            }
            guard iterator != nil else { return .ended }
            let buffer: ByteBuffer?
            do {
                buffer = try await iterator!.next()
            } catch {
                throw Self.bodyError(error, key: key, offset: offset)
            }
            guard let buffer else {
                try await bodyEnded()
                if pending.isEmpty { return .ended }
                continue
            }
            let count = buffer.readableBytes
            statistics.update { $0.bytesFromOrigin += Int64(count) }
            if NIODeadline.now() > deadline {
                throw VideoError(.timeout, "\(key): the body did not arrive within the total timeout (at byte \(offset))")
            }
            if let bodyEnd, offset + Int64(count) > bodyEnd {
                throw VideoError(.invalidResponse, "\(key): the body is longer than the \(bodyEnd) bytes it announced")
            }
            pending.append(contentsOf: buffer.readableBytesView)
            offset += Int64(count)
        }
    }

    /// The body ended: short of what it announced is an error; an unknown length is now known.
    private func bodyEnded() async throws {
        iterator = nil
        if let end = bodyEnd ?? version.info.totalLength, offset < end {
            throw VideoError(.truncated, "\(key): the body ended at byte \(offset) of the \(end) announced")
        }
        guard version.info.totalLength == nil else { return }
        let total = offset
        version.info.totalLength = total
        if version.stored {
            let (store, key, generation) = (util.store, key, version.generation)
            _ = try await util.runIO { try store.updateInfo(forKey: key, generation: generation) { $0.totalLength = total } }
        }
    }

    /// Stores a whole chunk and hands it to whoever waits for it.
    private func complete(_ index: Int, _ data: Data) async throws -> ChunkDelivery {
        if version.stored {
            let (store, key, generation) = (util.store, key, version.generation)
            // staleGeneration: the version was replaced meanwhile; the bytes still serve this read
            _ = try await util.runIO { try store.writeChunk(forKey: key, generation: generation, index: index, bytes: data) }
        }
        let delivery = ChunkDelivery(data: data, version: version)
        if let signal = claims.removeValue(forKey: index) {
            util.inFlight.finish(key: key, index: index, signal: signal, .success(delivery))
        }
        return delivery
    }

    /// The read let go before its end (its client left). With `throughRun` (a window, a few
    /// chunks), the rest of the run is read and stored in the background: the origin is sending it
    /// anyway, and the same jump again then costs nothing; readers waiting for those chunks keep
    /// waiting for this fetch. Otherwise only the chunks whose bytes have come are finished (the
    /// last one read to its end), readers of later chunks are told at once and fetch them
    /// themselves, and a fetch between chunks just closes.
    func finishAndClose(throughRun: Bool) {
        guard iterator != nil, throughRun || !pending.isEmpty else {
            close()
            return
        }
        // the chunk that holds the last byte that came: every chunk up to it is stored
        let last = throughRun ? runEnd - 1 : currentChunk + (pending.count - 1) / chunkSize
        runEnd = min(runEnd, last + 1)
        let later = claims.filter { $0.key > last }
        for index in later.keys { claims.removeValue(forKey: index) }
        for (index, signal) in later {
            util.inFlight.finish(key: key, index: index, signal: signal, .failure(VideoError(.network, "the fetch of \(key) stopped before this chunk")))
        }
        Task {
            _ = try? await self.deliver(chunk: last)
            self.close()
        }
    }

    /// Stops reading the body (the connection is closed when the body was not finished).
    func close() {
        iterator = nil
        if !claims.isEmpty { abandon(with: VideoError(.network, "the fetch of \(key) stopped before this chunk")) }
    }

    /// Stops and tells the readers waiting for chunks not delivered yet, who then fetch them.
    func abandon(with error: any Error) {
        iterator = nil
        let left = claims
        claims.removeAll()
        for (index, signal) in left { util.inFlight.finish(key: key, index: index, signal: signal, .failure(error)) }
    }

    /// A failure while the body streams: a read timeout, an answer that is not valid HTTP, or (any
    /// other failure) a body cut short.
    static func bodyError(_ error: any Error, key: String, offset: Int64) -> any Error {
        if error is CancellationError || error is VideoError { return error }
        let failure = LoaderError.from(error)
        if failure == .timeout {
            return VideoError(.timeout, "\(key): the body stopped at byte \(offset): \(failure.message)", underlying: error)
        }
        if failure == .invalidResponse {
            return VideoError(.invalidResponse, "\(key): the body broke off at byte \(offset): \(failure.message)", underlying: error)
        }
        return VideoError(.truncated, "\(key): the body broke off at byte \(offset), before its end: \(failure.message)", underlying: error)
    }
}
