import AssetCodecs
import AssetVideoFrames

/// A video's animated preview made by an ``ImageTransform`` with ``ImageTransform/animate``:
/// the frames from `from` to `to` (3 seconds when `to` is not given) at `fps` (10 when not given)
/// decoded by `VideoPreviewDecoder` at the least size that covers the transform's box, then
/// resized, cropped, padded and encoded (WebP, GIF or MP4) by a ``MotionWriter`` as they come.
/// Only the container's index and the packets from the key frame before `from` to `to` are read.
///
/// Blocks its thread: call it off Swift's cooperative pool, or in a worker (``VideoPreviewJob``).
public enum VideoMotion {
    /// Frames a second of a preview whose transform gives none.
    public static let defaultFramesPerSecond = 10.0

    /// The decoder's spec of `transform`: its range (a time or a position; a frame number other
    /// than 0 names no point of a video) and rate, and its box in pixels (dpr applied).
    /// - Throws: ``ImagingError/invalidTransform``.
    public static func spec(of transform: ImageTransform) throws -> VideoPreviewSpec {
        func time(_ spec: FrameSpec?, _ name: String) throws -> VideoFrameTime? {
            guard let spec else { return nil }
            do {
                return try VideoFrameTime(spec)
            } catch {
                throw ImagingError.invalidTransform("\(name) of a video is a time (2.5s) or a position (50%), not a frame number")
            }
        }
        let cover = { (side: Int?) in side.map { max(1, Int((Double($0) * transform.devicePixelRatio).rounded(.up))) } }
        return VideoPreviewSpec(
            from: try time(transform.from, "from") ?? .first, to: try time(transform.to, "to"),
            framesPerSecond: transform.framesPerSecond ?? defaultFramesPerSecond,
            coverWidth: cover(transform.width), coverHeight: cover(transform.height))
    }

    /// Makes the preview of `source` here, on the calling thread.
    /// - Throws: ``ImagingError`` (the transform, the limits, the encoder), `VideoFrameError` (the
    ///   video).
    public static func make(
        _ source: VideoFrameSource, transform: ImageTransform, accepting accepted: [OutputFormat]?,
        configuration: ImageProcessor.Configuration, limits: VideoPreviewDecoder.Configuration
    ) throws -> EncodedImage {
        let writer = try MotionWriter(transform: transform, accepting: accepted, configuration: configuration, hasAlpha: false)
        var decoding = limits
        decoding.maxFrames = min(limits.maxFrames, configuration.maxAnimationFrames)
        try VideoPreviewDecoder(configuration: decoding).decode(source, spec: try spec(of: transform)) { bitmap, duration in
            try writer.add(bitmap, duration: duration)
        }
        return try writer.finish()
    }
}
