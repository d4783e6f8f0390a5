import AssetStorage
import Foundation
import Synchronization

/// The bytes of one range read, as buffers of at most one chunk, fetched as they are consumed.
///
/// Iterate it once. ``statistics`` is updated as the iteration goes on.
public struct VideoByteStream: AsyncSequence, Sendable {
    /// A buffer of bytes, at most one chunk long, in order.
    public typealias Element = Data

    let util: VideoUtil
    let url: String
    let range: VideoByteRange
    /// Whether origin requests are windows of ``VideoUtil/Configuration/readAheadChunks`` (a
    /// consumer that may stop at any point) rather than whole runs (a read collected whole).
    let windowed: Bool
    let statisticsBox = StatisticsBox()

    /// What the read has cost so far.
    public var statistics: VideoReadStatistics { statisticsBox.value }
    /// What the origin said of the version being read (length, validators, content type, cache
    /// directives), once the first bytes are known; nil before.
    public var resource: ChunkRecord.ResourceInfo? { statisticsBox.resource }

    /// Starts the read: the iterator fetches each chunk as it is asked for the next buffer.
    public func makeAsyncIterator() -> Iterator {
        Iterator(session: VideoReadSession(util: util, url: url, range: range, windowed: windowed, statistics: statisticsBox))
    }

    /// Reads the range buffer by buffer.
    public struct Iterator: AsyncIteratorProtocol {
        let session: VideoReadSession

        /// The next buffer, fetched from the chunk store or the origin; nil after the range's last byte.
        ///
        /// Throws a `VideoError` when the range cannot be read, and `CancellationError` when the task is
        /// cancelled.
        public mutating func next() async throws -> Data? {
            try await session.next()
        }
    }
}

/// The statistics a session updates and its stream reads.
final class StatisticsBox: Sendable {
    private let state = Mutex(VideoReadStatistics())
    private let resourceState = Mutex<ChunkRecord.ResourceInfo?>(nil)
    var value: VideoReadStatistics { state.withLock { $0 } }
    func update(_ change: (inout VideoReadStatistics) -> Void) { state.withLock { change(&$0) } }
    var resource: ChunkRecord.ResourceInfo? { resourceState.withLock { $0 } }
    func setResource(_ info: ChunkRecord.ResourceInfo?) { resourceState.withLock { $0 = info } }
}
