import AssetCodecs
import AssetImaging
import AssetLoading
import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// The image at `url` made into `transform` (resized, cropped, upright, sRGB, encoded): from
    /// memory, else from the disk cache's derived entry, else made now and stored in both.
    ///
    /// - **The source** loads as any image does (``Options/strategy``: fresh from the disk cache,
    ///   revalidated, or downloaded). Its validator (`ETag`, else `Last-Modified`, else a checksum
    ///   of its bytes) is part of the variant's key (``VariantKey``), so a changed source never
    ///   serves an old variant.
    /// - **A miss** reads the source bytes, plans the transform from the header (limits checked
    ///   before any pixel memory), reserves the plan's bytes from the decode budget, and transforms
    ///   on the decode pool, never on Swift's cooperative pool; with ``Configuration/decodeWorkers``,
    ///   a HEIF, AVIF, TIFF, SVG or JPEG XL source is planned and transformed in a worker process
    ///   instead (`ImagingError.decodeFailed` when the worker crashes or runs past its time). The result goes to the disk cache as
    ///   a derived entry (kind `.image`) and to the image memory cache.
    /// - **Concurrent requests** for the same variant share one transform (and the loader shares
    ///   one download of the source).
    /// - **A transform with a frame** (`ImageTransform.frame`) takes the source as an animation
    ///   (Lottie JSON, dotLottie or `.tgs`), parsed from the very bytes the key names and rendered
    ///   by ``lottie`` at the size the output needs, then cropped, padded and encoded as any image
    ///   (`format=auto` gives PNG without a list). A source that is no animation is
    ///   `ImagingError.notAnAnimation`; a frame that cannot be rendered is a `LottieRenderError`
    ///   (`renderFailed` when a render worker crashed or ran past its time).
    /// - `accepted`: the formats the caller takes, for `format=auto` (nil: keep the source's format).
    /// - Errors: `ImagingError` for a transform that cannot be made (nothing is cached),
    ///   `CodecError` for a source that does not decode (its disk entry is removed, as
    ///   ``image(for:options:)`` does), `LoaderError` for a load that fails; for a frame,
    ///   `LottieError` for an animation that does not parse and `LottieRenderError`.
    ///
    /// ```swift
    /// let variant = try await images.variant(for: url, transform: ImageTransform(width: 256, format: .webp))
    /// print(variant.mediaType, variant.width, variant.height, variant.data.count)
    /// ```
    public func variant(
        for url: URL, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil, options: Options = Options()
    ) async throws -> ImageVariant {
        try await variant(for: variantRequest(for: url, transform: transform, accepting: accepted, options: options))
    }

    /// Loads the source of a variant and names the variant (its key and entity tag) without making
    /// it; ``variant(for:)`` makes it. The source loads as ``variant(for:transform:accepting:options:)``
    /// describes.
    /// - Throws: `ImagingError.invalidTransform` for a transform beyond the limits, `LoaderError` for
    ///   a load that fails.
    public func variantRequest(
        for url: URL, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil, options: Options = Options()
    ) async throws -> VariantRequest {
        try transform.validate(maxOutputDimension: configuration.processor.maxOutputDimension)
        let response = try await manager.load(AssetRequest(
            url: url, kind: .image, cacheKey: options.cacheKey, strategy: options.strategy))
        return try await variantRequest(source: response, transform: transform, accepting: accepted, options: options)
    }

    /// Names the variant of a source the caller loaded itself (with kind `.image`).
    public func variantRequest(
        source response: AssetResponse, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil,
        options: Options = Options()
    ) async throws -> VariantRequest {
        try transform.validate(maxOutputDimension: configuration.processor.maxOutputDimension)
        var sourceData: Data? = nil
        let validator: String
        if let known = VariantKey.validator(of: response) {
            validator = known
        } else {
            let data = try await manager.loader.data(for: response)
            sourceData = data
            validator = "sum:" + BytesChecksum.string(of: data)
        }
        let key = VariantKey.key(
            sourceKey: response.cacheKey, validator: validator, transform: transform, accepted: accepted,
            renderer: configuration.rendererVersion)
        if let store = variants.derived, let metadata = response.metadata {
            store.recordSource(metadata)
        }
        return VariantRequest(
            source: response, transform: transform, accepted: accepted, validator: validator, key: key, options: options,
            sourceData: sourceData)
    }

    /// The variant a ``VariantRequest`` names when the image memory cache holds it; nil otherwise
    /// (nothing is loaded or made).
    public func cachedVariant(for request: VariantRequest) -> ImageVariant? {
        guard request.options.strategy != .networkOnly, var hit = variants.memory.object(ImageVariant.self, forKey: request.key) else {
            return nil
        }
        hit.origin = .memory
        return hit
    }

    /// The variant a ``VariantRequest`` names: from memory, else from the disk cache, else made now
    /// (in a turn of the transform queue: ``Configuration/maxConcurrentTransforms``) and stored.
    /// - Throws: as ``variant(for:transform:accepting:options:)``, and `ImagingError.overloaded`
    ///   when the transform queue is full.
    public func variant(for request: VariantRequest) async throws -> ImageVariant {
        if let hit = cachedVariant(for: request) { return hit }
        return try await variants.work.value(forKey: request.key) {
            try await self.makeVariant(request)
        }
    }

    /// The processor limits for `options`: the pixel budget and input limit of the decode options.
    func processorConfiguration(_ options: Options) -> ImageProcessor.Configuration {
        var configuration = self.configuration.processor
        configuration.maxSourcePixels = options.pixelBudget
        configuration.maxInputBytes = self.configuration.maxInputBytes
        return configuration
    }

    /// The shared work of one variant key: the disk cache, else the transform and its stores.
    private func makeVariant(_ request: VariantRequest) async throws -> ImageVariant {
        let key = request.key, validator = request.validator, response = request.source, options = request.options
        let transform = request.transform, accepted = request.accepted
        let processor = ImageProcessor(configuration: processorConfiguration(options))
        let disk = manager.diskCache
        if options.strategy != .networkOnly, let variant = await diskVariant(request) {
            return variant
        }
        if options.strategy != .networkOnly, let shared = try await sharedVariant(request) {
            return shared
        }
        let data: Data
        if let sourceData = request.sourceData {
            data = sourceData
        } else {
            do {
                data = try await manager.loader.data(for: response)
            } catch let error as LoaderError where error == .notCached {
                // The entry went away since the load (another transform of it found the bytes bad
                // and dropped them, or the disk cache evicted it): load the source again, and go on
                // only if it is the same version the key names.
                let again = try await manager.load(AssetRequest(
                    url: try AssetRequest.location(response.url), kind: .image, cacheKey: options.cacheKey, strategy: options.strategy))
                guard VariantKey.validator(of: again) == validator else { throw error }
                data = try await manager.loader.data(for: again)
            }
        }
        let encoded: EncodedImage
        do {
            let start = ContinuousClock.now
            encoded = try await variants.queue.run {
                if transform.animate {
                    return try await self.motionImage(of: data, transform: transform, accepting: accepted, processor: processor)
                }
                if let frame = transform.frame {
                    return try await self.frameImage(of: data, at: frame, transform: transform, accepting: accepted, processor: processor)
                }
                if let workers = self.configuration.workers(for: data) {
                    // The header, the decode and the transform in a worker: the pixels live there.
                    self.transforms.add(1, ordering: .relaxed)
                    return try await ImageTransformJob.run(
                        on: workers, source: data, transform: transform, accepted: accepted,
                        configuration: processor.configuration)
                }
                let plan = try await runDecoding { try processor.plan(for: data, transform: transform, accepting: accepted) }
                return try await decodeBudget.withReservation(of: plan.estimatedBytes + data.count) {
                    try await runDecoding { [self] in
                        self.transforms.add(1, ordering: .relaxed)
                        return try processor.process(data, plan: plan, transform: transform)
                    }
                }
            }
            if let observe = configuration.onTransform {
                let elapsed = (ContinuousClock.now - start).components
                observe(encoded.format, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            }
        } catch let error as CodecError where error.isDataError {
            await manager.discardStoredBody(of: response)
            throw error
        }
        let variant = ImageVariant(
            data: Data(encoded.bytes), format: encoded.format, width: encoded.width, height: encoded.height, key: key,
            sourceValidator: validator, origin: .transformed)
        let info = DiskCache.EntryInfo(
            kind: .image, originalUrlString: response.url,
            contentType: VariantKey.contentType(of: encoded.format, width: encoded.width, height: encoded.height),
            lastModified: response.headers.values(for: "Last-Modified").first)
        // A refused store (a full disk) still answers: the variant is in memory.
        try? await manager.runIO { _ = try disk.store(variant.data, forKey: key, info: info) }
        variants.memory.set(variant, forKey: key, cost: variant.cost)
        if let contentType = info.contentType {
            variants.derived?.write(variantKey: key, data: variant.data, contentType: contentType)
        }
        return variant
    }

    /// The variant a ``VariantRequest`` names from the disk cache's derived entry, kept in memory
    /// too; nil when there is none (or it cannot be read).
    func diskVariant(_ request: VariantRequest) async -> ImageVariant? {
        let disk = manager.diskCache, key = request.key
        guard let stored = try? await manager.runIO({ () -> (Data, CacheMetadata)? in
            guard let metadata = try disk.metadata(forKey: key), let data = try disk.data(forKey: key) else { return nil }
            return (data, metadata)
        }), let contentType = stored.1.contentType, let facts = VariantKey.parse(contentType: contentType) else { return nil }
        let variant = ImageVariant(
            data: stored.0, format: facts.format, width: facts.width, height: facts.height, key: key,
            sourceValidator: request.validator, origin: .disk)
        variants.memory.set(variant, forKey: key, cost: variant.cost)
        return variant
    }

    /// Transforms started by this util (memory and disk hits and coalesced callers start none).
    public var transformCount: Int { transforms.load(ordering: .relaxed) }
}
