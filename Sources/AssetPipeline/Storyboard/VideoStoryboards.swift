import AssetImaging
import AssetStorage
import AssetVideoFrames

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Storyboards of videos (``VideoStoryboard``): a sprite sheet of small frames every so many
/// seconds and its WebVTT or JSON, read by range through ``VideoUtil``'s chunk store.
///
/// - **Reads**: the video's head and its index (at either end), then for each tile the packet of
///   the key frame at or before its time (`VideoStoryboardSpec.keyFramesOnly`, the default) or
///   the packets from that key frame to the time. A key frame shared by several tiles is read and
///   decoded once. Only the chunks those bytes fall in are fetched, once, and kept.
/// - **Limits** (``Configuration/limits``) are checked before any decode: the tile count, the
///   sheet's pixels, the video's declared size.
/// - **The key** names the video's cache key and the validator of the version read (the chunk
///   record's), the spec, the sprite's format and quality, and the renderer's version
///   (``RendererVersion``): a changed video drops its chunks and names another storyboard. A video
///   without a validator is made for each request and never stored.
/// - **Kept** in the image memory cache and in the disk cache as two derived entries (the sprite,
///   then a small manifest, the commit record); concurrent requests for one key share one decode.
/// - With the video util's ``VideoUtil/Configuration/frameWorkers`` the decode runs in a worker
///   process (`assetpipe worker`), else on a thread of its own.
/// - Errors: `VideoError` for the reads, `VideoFrameError` for the decode and the limits
///   (`notAVideo` for bytes that are no video), `ImagingError` for the encode. Nothing is stored
///   for any of them.
///
/// ```swift
/// let storyboards = VideoStoryboards(images: images, video: video)
/// let board = try await storyboards.storyboard(for: url, spec: VideoStoryboardSpec(interval: 10, tileWidth: 160))
/// try board.webVTT(spriteURL: "storyboard.jpg").write(toFile: "storyboard.vtt", atomically: true, encoding: .utf8)
/// ```
public final class VideoStoryboards: Sendable {
    /// The limits and the sprite's encoding.
    public struct Configuration: Sendable {
        /// The decode's limits. Default: `VideoStoryboardDecoder.Configuration()` (1,000 tiles,
        /// 8192 x 8192 pixels).
        public var limits: VideoStoryboardDecoder.Configuration
        /// The sprite's quality, 1...100. Default: 75.
        public var quality: Int

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(limits: VideoStoryboardDecoder.Configuration = .init(), quality: Int = 75) {
            self.limits = limits
            self.quality = quality
        }
    }

    /// Where storyboards are kept (memory, disk cache), and the transform queue and decode budget.
    public let images: ImageUtil
    /// Where the video's bytes are read.
    public let video: VideoUtil
    /// The limits and the sprite's encoding.
    public let configuration: Configuration
    /// Concurrent requests for one storyboard share one decode, which runs on to the cache when
    /// its callers have all left (a request past the service's transform timeout).
    private let storyboards = TaskCoalescer<String, VideoStoryboard>(abandoned: .finish)

    /// Storyboards kept by `images`, read through `video` (which should share the images' manager).
    public init(images: ImageUtil, video: VideoUtil, configuration: Configuration = Configuration()) {
        self.images = images
        self.video = video
        self.configuration = configuration
    }

    /// Names the storyboard `spec` asks of the video at `url`, with its sprite in `format` (JPEG
    /// or WebP), reading only the video's first chunk.
    /// - Throws: `VideoFrameError.notAVideo` for bytes that are no video (its chunk is dropped),
    ///   `ImagingError.unsupportedFormat` for a sprite format other than JPEG or WebP, `VideoError`
    ///   when the head cannot be read.
    public func storyboardRequest(
        for url: String, spec: VideoStoryboardSpec, format: OutputFormat = .jpeg
    ) async throws -> VideoStoryboardRequest {
        guard format == .jpeg || format == .webp else { throw ImagingError.unsupportedFormat }
        let (head, resource, statistics) = try await video.head(of: url, count: VideoFrameVariants.sniffLength)
        guard ImageUtil.MovingSource(sniffing: head) == .video else {
            try await images.manager.dropChunks(ofURL: url)
            throw VideoFrameError(.notAVideo, "a storyboard is made of a video (MP4, QuickTime, WebM, Matroska)")
        }
        let validator = VideoFrameVariantRequest.validator(of: resource)
        let key = [
            "storyboard", VideoUtil.cacheKey(for: url), validator ?? "unvalidated", spec.canonicalText, format.rawValue,
            "q\(configuration.quality)", images.configuration.rendererVersion,
        ].joined(separator: "\u{1F}")
        return VideoStoryboardRequest(
            url: url, spec: spec, format: format, resource: resource, validator: validator, key: key, statistics: statistics)
    }

    /// The storyboard of the video at `url`.
    public func storyboard(for url: String, spec: VideoStoryboardSpec, format: OutputFormat = .jpeg) async throws -> VideoStoryboard {
        try await storyboard(for: storyboardRequest(for: url, spec: spec, format: format))
    }

    /// The storyboard `request` names: from memory, else from the disk cache, else made now and
    /// kept (a video without a validator: made, not kept).
    public func storyboard(for request: VideoStoryboardRequest) async throws -> VideoStoryboard {
        guard request.validator != nil else { return try await make(request) }
        if var hit = images.variants.memory.object(VideoStoryboard.self, forKey: request.key) {
            hit.origin = .memory
            return hit
        }
        let (memory, key) = (images.variants.memory, request.key)
        if let stored = try await stored(request) {
            memory.set(stored, forKey: key, cost: stored.cost)
            return stored
        }
        return try await storyboards.value(forKey: key) {
            if let stored = try await self.stored(request) { return stored }
            let made = try await self.make(request)
            await self.keep(made, of: request)
            memory.set(made, forKey: key, cost: made.cost)
            return made
        }
    }
}
