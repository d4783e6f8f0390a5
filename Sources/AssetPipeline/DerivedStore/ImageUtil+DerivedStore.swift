import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// The variant a ``VariantRequest`` names from the ``DerivedStore``, kept in the disk cache and
    /// memory as a transform's would be; nil without a store, on a miss, or when the store fails.
    func sharedVariant(_ request: VariantRequest) async throws -> ImageVariant? {
        guard let store = variants.derived,
            let found = await store.read(variantKey: request.key, maxBytes: configuration.maxInputBytes),
            let facts = VariantKey.parse(contentType: found.contentType)
        else { return nil }
        let variant = ImageVariant(
            data: found.data, format: facts.format, width: facts.width, height: facts.height, key: request.key,
            sourceValidator: request.validator, origin: .derivedStore)
        let info = DiskCache.EntryInfo(
            kind: .image, originalUrlString: request.source.url, contentType: found.contentType,
            lastModified: request.source.headers.values(for: "Last-Modified").first)
        let disk = manager.diskCache
        try? await manager.runIO { _ = try disk.store(variant.data, forKey: request.key, info: info) }
        variants.memory.set(variant, forKey: request.key, cost: variant.cost)
        return variant
    }
}
