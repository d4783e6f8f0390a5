#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// A `file://` load: the file is checked (a regular file within the kind's maximum) and answered as
    /// it is, never cached or revalidated.
    func loadFile(path: String, target: LoadTarget, start: Date) async throws -> AssetResponse {
        let request = target.request
        let size = try await self.runIO { try LocalFile.size(path: path) }
        let limit = self.configuration.maxBodySize(for: request.kind)
        guard size <= limit else {
            throw LoaderError.tooLarge.with(message: "\(path): \(size) bytes, at most \(limit) allowed for \(request.kind)")
        }
        return AssetResponse(
            url: request.address, cacheKey: target.cacheKey, kind: request.kind,
            outcome: .localFile, status: 200, headers: HeaderFields([("Content-Length", String(size))]),
            body: .file(path: path, size: size), storagePolicy: .memoryOnly, size: size, bytesReceived: 0, attempts: 0,
            timings: AssetResponse.Timings(start: start, responseHead: nil, end: self.configuration.clock.now))
    }
}
