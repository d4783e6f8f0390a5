import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VideoUtil {
    /// The first `count` bytes of `url` through the chunk store (a whole chunk is fetched and kept;
    /// nothing is fetched when it is stored and fresh, and a stale record is revalidated), with
    /// the version they belong to and what the read cost. A version that changes during the read
    /// is read again once.
    /// - Throws: `VideoError` as ``read(for:byteRange:)``, and `invalidResponse` when the origin
    ///   described no version.
    func head(of url: String, count: Int64) async throws -> (Data, ChunkRecord.ResourceInfo, VideoReadStatistics) {
        for attempt in 0..<2 {
            let stream = self.stream(address: url, range: .bounded(0..<count), windowed: false)
            var head = Data()
            do {
                for try await piece in stream { head.append(piece) }
            } catch let error as VideoError where error.code == .resourceChanged && attempt == 0 {
                continue
            }
            guard let resource = stream.resource else {
                throw VideoError(.invalidResponse, "the origin did not describe \(url)")
            }
            return (head, resource, stream.statistics)
        }
        throw VideoError(.resourceChanged, "\(url) changed twice during one read")
    }
}
