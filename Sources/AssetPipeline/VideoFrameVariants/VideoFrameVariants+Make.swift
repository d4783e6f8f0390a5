import AssetImaging
import AssetStorage
import AssetVideoFrames

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VideoFrameVariants {
    /// Decodes the frame (or the preview's frames) through the chunk store and makes it into the
    /// transform, in a turn of the transform queue. Nothing is stored here.
    func make(_ request: VideoFrameVariantRequest) async throws -> ImageVariant {
        if request.transform.animate { return try await makePreview(request) }
        guard let spec = request.transform.frame else { throw ImagingError.invalidTransform }
        let time = try VideoFrameTime(spec)
        let processor = ImageProcessor(configuration: images.processorConfiguration(request.options))
        var limits = video.configuration.frameDecoder
        limits.maxPixels = min(limits.maxPixels, request.options.pixelBudget)
        let (images, video) = (self.images, self.video)
        let encoded = try await images.variants.queue.run {
            // at its own size, as a frame of the whole file is: the processor resizes it, so a
            // variant is the same bytes whichever way the video was read
            let frame = try await video.readFrame(address: request.url, at: time, size: .natural, limits: limits)
            let bitmap = frame.frame.bitmap
            return try await images.decodeBudget.withReservation(of: bitmap.pixels.count * 3) {
                try await images.runDecoding {
                    images.transforms.add(1, ordering: .relaxed)
                    return try processor.process(bitmap: bitmap, transform: request.transform, accepting: request.accepted)
                }
            }
        }
        return ImageVariant(
            data: Data(encoded.bytes), format: encoded.format, width: encoded.width, height: encoded.height, key: request.key,
            sourceValidator: request.validator ?? "", origin: .transformed)
    }

    /// The animated preview of `request` (``VideoMotion``): its frames decoded through the chunk
    /// store (the index and the packets from the key frame before `from` to `to`), in a worker of
    /// the video util's when it has some.
    private func makePreview(_ request: VideoFrameVariantRequest) async throws -> ImageVariant {
        let configuration = images.processorConfiguration(request.options)
        let limits = VideoPreviewDecoder.Configuration(
            maxPixels: min(video.configuration.frameDecoder.maxPixels, request.options.pixelBudget))
        let (images, video) = (self.images, self.video)
        let (transform, accepted) = (request.transform, request.accepted)
        let encoded = try await images.variants.queue.run {
            images.transforms.add(1, ordering: .relaxed)
            return try await video.decodeByRange(
                address: request.url,
                inWorker: { workers, total, reads in
                    try await VideoPreviewJob.run(
                        on: workers, sourceSize: total, transform: transform, accepted: accepted, configuration: configuration,
                        limits: limits, reads: reads)
                },
                here: { source in
                    try VideoMotion.make(source, transform: transform, accepting: accepted, configuration: configuration, limits: limits)
                }
            ).0
        }
        return ImageVariant(
            data: Data(encoded.bytes), format: encoded.format, width: encoded.width, height: encoded.height, key: request.key,
            sourceValidator: request.validator ?? "", origin: .transformed)
    }

    /// The variant from the disk cache's derived entry, else from the derived store (then kept in
    /// the disk cache too); nil on a miss.
    func storedVariant(_ request: VideoFrameVariantRequest) async throws -> ImageVariant? {
        let (disk, key) = (images.manager.diskCache, request.key)
        if let stored = try? await images.manager.runIO({ () -> (Data, CacheMetadata)? in
            guard let metadata = try disk.metadata(forKey: key), let data = try disk.data(forKey: key) else { return nil }
            return (data, metadata)
        }), let contentType = stored.1.contentType, let facts = VariantKey.parse(contentType: contentType) {
            let variant = ImageVariant(
                data: stored.0, format: facts.format, width: facts.width, height: facts.height, key: key,
                sourceValidator: request.validator ?? "", origin: .disk)
            images.variants.memory.set(variant, forKey: key, cost: variant.cost)
            return variant
        }
        guard let shared = images.variants.derived,
            let found = await shared.read(variantKey: key, maxBytes: images.configuration.maxInputBytes),
            let facts = VariantKey.parse(contentType: found.contentType)
        else { return nil }
        let variant = ImageVariant(
            data: found.data, format: facts.format, width: facts.width, height: facts.height, key: key,
            sourceValidator: request.validator ?? "", origin: .derivedStore)
        let info = entryInfo(of: request, contentType: found.contentType)
        try? await images.manager.runIO { _ = try disk.store(variant.data, forKey: key, info: info) }
        images.variants.memory.set(variant, forKey: key, cost: variant.cost)
        return variant
    }

    /// Keeps a variant made now: the disk cache's derived entry (a refused store still answers),
    /// the image memory cache, and the derived store in the background.
    func store(_ variant: ImageVariant, of request: VideoFrameVariantRequest) async {
        let contentType = VariantKey.contentType(of: variant.format, width: variant.width, height: variant.height)
        let info = entryInfo(of: request, contentType: contentType)
        let (disk, key) = (images.manager.diskCache, request.key)
        try? await images.manager.runIO { _ = try disk.store(variant.data, forKey: key, info: info) }
        images.variants.memory.set(variant, forKey: key, cost: variant.cost)
        images.variants.derived?.write(variantKey: key, data: variant.data, contentType: contentType)
    }

    private func entryInfo(of request: VideoFrameVariantRequest, contentType: String) -> DiskCache.EntryInfo {
        DiskCache.EntryInfo(
            kind: .image, originalUrlString: request.url, contentType: contentType, lastModified: request.resource.lastModified)
    }
}
