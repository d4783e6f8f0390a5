import AssetImaging
import AssetLoading
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

    /// A variant of a source this process has not stored, answered from the ``DerivedStore`` with
    /// no request to the origin and no transform; nil when that cannot be done, and the caller
    /// takes the ordinary way (``variantRequest(for:transform:accepting:options:)``).
    ///
    /// - **Only for a source not on disk here**: a source this process holds loads (or revalidates)
    ///   as usual, and costs no store round trip.
    /// - **The source's record** (``DerivedStore/sourceRecord(forCacheKey:)``, written by whichever
    ///   process loaded it) names its validator; it is trusted only while the source is fresh for
    ///   `headers` (`AssetLoader.recordedResponse(for:record:)`: the rule under which any cache
    ///   of the source answers without asking the origin), so a changed source is never answered
    ///   with an older variant for longer than a cached copy of the source would be. The
    ///   renderer's version is part of the variant key, not of the record: a new renderer misses.
    /// - **The variant** comes from memory, the disk cache or the store, in that order, and is kept
    ///   here as `sharedVariant(_:)` keeps it.
    /// - Nothing is thrown: a store that is down, slow or lacks either object is nil.
    public func storedVariant(
        for url: URL, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil, options: Options = Options(),
        headers: HeaderFields = HeaderFields()
    ) async -> (request: VariantRequest, variant: ImageVariant)? {
        guard let store = variants.derived, options.strategy != .networkOnly,
            (try? transform.validate(maxOutputDimension: configuration.processor.maxOutputDimension)) != nil
        else { return nil }
        var asset = AssetRequest(url: url, kind: .image, cacheKey: options.cacheKey, strategy: options.strategy)
        asset.headers = headers
        let cacheKey = options.cacheKey ?? AssetLoader.defaultCacheKey(for: url.absoluteString)
        let disk = manager.diskCache
        let held = (try? await manager.runIO { try disk.metadata(forKey: cacheKey) }) ?? nil
        guard held == nil, let record = await store.sourceRecord(forCacheKey: cacheKey),
            let source = manager.loader.recordedResponse(for: asset, record: record),
            let validator = VariantKey.validator(of: source)
        else { return nil }
        let key = VariantKey.key(
            sourceKey: source.cacheKey, validator: validator, transform: transform, accepted: accepted,
            renderer: configuration.rendererVersion)
        let request = VariantRequest(
            source: source, transform: transform, accepted: accepted, validator: validator, key: key, options: options,
            sourceData: nil)
        if let hit = cachedVariant(for: request) { return (request, hit) }
        if let hit = await diskVariant(request) { return (request, hit) }
        guard let shared = try? await sharedVariant(request) else { return nil }
        return (request, shared)
    }
}
