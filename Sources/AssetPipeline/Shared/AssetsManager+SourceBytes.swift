import AssetLoading
import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The source bytes of an asset as the utils fetch them: through the loader (which keeps them on
/// disk), and dropped from the disk cache again when they turn out not to decode.
extension AssetsManager {
    /// Loads `request` and reads its body.
    func sourceBytes(for request: AssetRequest) async throws -> (response: AssetResponse, data: Data) {
        let response = try await load(request)
        return (response, try await loader.data(for: response))
    }

    /// Removes the disk cache entry that `response` was answered from, if it was one: bytes that
    /// fail to decode must not stay behind as a good entry, to be served again until they expire.
    /// Local files and bodies held in memory have nothing stored. A failure to remove is ignored:
    /// the caller is already reporting the decoding error.
    func discardStoredBody(of response: AssetResponse) async {
        guard let key = response.metadata?.key else { return }
        try? await removeData(forKey: key, storageType: .disk)
    }
}
