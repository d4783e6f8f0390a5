import AssetCodecs
import AssetLoading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// Loads the bytes of the image at `url` as a miss does (through the loader and the disk cache,
    /// as `options.strategy` says) and hands them to `body`, which decodes them its own way, for
    /// example row by row into a file or a response (`ImageRowReader`, `PixelFileFormat`).
    ///
    /// - Nothing is decoded into a bitmap or kept in memory, and the memory cache is not read.
    /// - `body` runs on the decode pool (by default the manager's I/O threads), never on Swift's
    ///   cooperative pool. Its memory is its own: it is not reserved from the decode budget.
    /// - When `body` throws a data error (`CodecError` corrupt, truncated, unsupported or
    ///   tooLarge), the bytes' disk cache entry is removed, as ``image(for:options:)`` does, and
    ///   the error is rethrown.
    /// - Throws: `LoaderError` for a load that fails, or what `body` throws.
    public func withSourceBytes<T: Sendable>(
        for url: URL, options: Options = Options(), _ body: @escaping @Sendable (Data) throws -> T
    ) async throws -> T {
        let (response, data) = try await manager.sourceBytes(for: AssetRequest(
            url: url, kind: .image, cacheKey: options.cacheKey, strategy: options.strategy))
        do {
            return try await runDecoding {
                self.decodes.add(1, ordering: .relaxed)
                return try body(data)
            }
        } catch let error as CodecError where error.isDataError {
            await manager.discardStoredBody(of: response)
            throw error
        }
    }
}
