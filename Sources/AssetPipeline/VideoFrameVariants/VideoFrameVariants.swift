import AssetImaging
import AssetLoading
import AssetStorage
import AssetVideoFrames

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Image variants of a video's frames (`/v1/image?url=VIDEO&frame=50%&w=320`, `prefetch --variant
/// frame=2s,w=320`), read by range through ``VideoUtil``'s chunk store: the video's index and the
/// packets the frame needs, never the file whole.
///
/// - **Naming** reads the video's first bytes through the chunk store (one chunk, or nothing when
///   it is stored and fresh; a stale record is revalidated by that read). Bytes that are no video
///   are not named (nil): their chunk is dropped and the caller loads the source as any other.
/// - **The key** is the ``VariantKey`` of the video's cache key and the validator of the version
///   read (the chunk record's, or the whole copy's in the disk cache): a changed video drops its
///   chunks and names another variant. A video without a validator is made for each request and
///   never stored.
/// - **A miss** decodes the frame with ``VideoUtil/readFrame(for:at:size:)`` (in the util's frame
///   workers when it has them) under the caller's pixel budget, in a turn of the image util's
///   transform queue, then resizes, crops and encodes it as any bitmap. The result goes where an
///   image variant goes: the image memory cache, the disk cache's derived entry, the derived
///   store. Concurrent requests for one key share one decode.
/// - Errors: `VideoError` for the reads, `VideoFrameError` for the decode, `ImagingError` for the
///   transform. Nothing is stored for any of them.
///
/// ```swift
/// let frames = VideoFrameVariants(images: images, video: video)
/// let named = try await frames.variantRequest(for: url, transform: ImageTransform(width: 320, frame: .percent(50)))
/// let poster = try await frames.variant(for: named!)
/// ```
public final class VideoFrameVariants: Sendable {
    /// Where variants are kept, and the transform queue.
    public let images: ImageUtil
    /// Where the video's bytes are read.
    public let video: VideoUtil

    /// Variants kept by `images`, read through `video` (which should share the images' manager).
    public init(images: ImageUtil, video: VideoUtil) {
        self.images = images
        self.video = video
    }

    /// How many bytes of a source are read to tell whether it is a video: one chunk is fetched and
    /// kept, and the frame's first read finds it there.
    static let sniffLength: Int64 = 512

    /// Names the variant of the frame `transform.frame` of the video at `url`, or of its animated
    /// preview (`transform.animate`), reading only its first chunk; nil when the source's bytes are
    /// no video (an animation, an image).
    /// - Throws: `ImagingError.invalidTransform` for a transform without a frame or animate=1, or beyond the
    ///   limits, `VideoError` when the head cannot be read.
    public func variantRequest(
        for url: String, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil,
        options: ImageUtil.Options = .init()
    ) async throws -> VideoFrameVariantRequest? {
        guard transform.frame != nil || transform.animate else {
            throw ImagingError(code: "invalidTransform", message: "a video variant needs a frame or animate=1") ?? .invalidTransform
        }
        try transform.validate(maxOutputDimension: images.configuration.processor.maxOutputDimension)
        let (head, resource, statistics) = try await video.head(of: url, count: Self.sniffLength)
        guard ImageUtil.MovingSource(sniffing: head) == .video else {
            try await images.manager.dropChunks(ofURL: url)
            return nil
        }
        let validator = VideoFrameVariantRequest.validator(of: resource)
        let key = VariantKey.key(
            sourceKey: VideoUtil.cacheKey(for: url), validator: validator ?? "unvalidated", transform: transform,
            accepted: accepted, renderer: images.configuration.rendererVersion)
        return VideoFrameVariantRequest(
            url: url, transform: transform, accepted: accepted, resource: resource, validator: validator, key: key,
            statistics: statistics, options: options)
    }

    /// The variant `request` names when the image memory cache holds it; nil otherwise.
    public func cachedVariant(for request: VideoFrameVariantRequest) -> ImageVariant? {
        guard request.validator != nil, request.options.strategy != .networkOnly,
            var hit = images.variants.memory.object(ImageVariant.self, forKey: request.key)
        else { return nil }
        hit.origin = .memory
        return hit
    }

    /// The variant `request` names: from memory, the disk cache or the derived store, else made
    /// now and stored (a video without a validator: made, not stored).
    /// - Throws: as the type's errors say, and `ImagingError.overloaded` when the transform queue
    ///   is full.
    public func variant(for request: VideoFrameVariantRequest) async throws -> ImageVariant {
        if let hit = cachedVariant(for: request) { return hit }
        guard request.validator != nil else { return try await make(request) }
        return try await images.variants.work.value(forKey: request.key) {
            if request.options.strategy != .networkOnly, let stored = try await self.storedVariant(request) { return stored }
            let variant = try await self.make(request)
            await self.store(variant, of: request)
            return variant
        }
    }

    /// The variant of the frame of the video at `url`, or nil when its bytes are no video.
    public func variant(
        for url: String, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil,
        options: ImageUtil.Options = .init()
    ) async throws -> ImageVariant? {
        guard let named = try await variantRequest(for: url, transform: transform, accepting: accepted, options: options) else {
            return nil
        }
        return try await variant(for: named)
    }
}
