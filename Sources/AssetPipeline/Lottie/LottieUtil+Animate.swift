import AssetCodecs
import AssetImaging
import AssetLottie
import AssetLottieRender

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LottieUtil {
    /// The animation made into an animated WebP, GIF or MP4 (``LottieMotion``): its frames rendered one
    /// at a time by rlottie (in a render worker with ``Configuration/renderWorkers``, as
    /// ``frame(of:at:size:)``) and streamed into the encoder off Swift's cooperative pool, so that
    /// memory is a frame and the output, whatever the length.
    /// - Throws: `LottieRenderError` (the renderer's checks and failures), `ImagingError` (the
    ///   motion's checks, the encoder, the output limit).
    public func animatedImage(of animation: LottieAnimation, motion: LottieMotion) async throws -> EncodedImage {
        let encoder = MotionEncoder(motion: motion)
        try await renderFrames(of: animation, motion: motion) { bitmap, duration in
            try await self.manager.runIO { try encoder.add(bitmap, duration: duration) }
        }
        return try await manager.runIO { try encoder.finish() }
    }

    /// The output frames of `motion` (its schedule, range and size; not its format), rendered one
    /// at a time as ``frame(of:at:size:)`` renders and handed to `take` with their durations in
    /// milliseconds, each taken before the next is rendered.
    func renderFrames(
        of animation: LottieAnimation, motion: LottieMotion, into take: (Bitmap, Int) async throws -> Void
    ) async throws {
        let renderer = self.renderer
        let input = try await manager.runIO { try renderer.prepare(animation) }
        let steps = try motion.steps(of: animation, frameCount: input.frameCount)
        for step in steps {
            try await take(try await frame(ofPrepared: input, at: .frame(step.frame), size: motion.size), step.duration)
        }
    }
}

/// An ``AnimatedImageEncoder`` made on the first frame (its size) and used from one task at a time
/// (its calls are awaited in turn).
final class MotionEncoder: @unchecked Sendable {
    private let motion: LottieMotion
    private var encoder: AnimatedImageEncoder?

    init(motion: LottieMotion) { self.motion = motion }

    func add(_ bitmap: Bitmap, duration: Int) throws {
        if encoder == nil {
            let options = ImageEncoder.Options(
                quality: motion.quality, lossless: motion.lossless, background: motion.background, maxOutputBytes: motion.maxOutputBytes)
            encoder = try AnimatedImageEncoder(
                format: motion.format, width: bitmap.width, height: bitmap.height, plays: motion.plays, hasAlpha: true,
                options: options)
        }
        try encoder!.add(bitmap, duration: duration)
    }

    func finish() throws -> EncodedImage {
        guard let encoder else { throw ImagingError.with(.encodeFailed, "the animation has no frame") }
        return EncodedImage(bytes: try encoder.finish(), format: motion.format, width: encoder.outputWidth, height: encoder.outputHeight)
    }
}
