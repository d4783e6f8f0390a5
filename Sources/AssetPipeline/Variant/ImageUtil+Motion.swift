import AssetCodecs
import AssetImaging
import AssetLottie
import AssetLottieRender
import AssetVideoFrames

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// The animation a transform with ``ImageTransform/animate`` makes of the moving source `data`
    /// (WebP, GIF or MP4: ``MotionWriter``): a Lottie animation's frames from `from` to `to` at
    /// `fps` (``LottieMotion``), rendered at the size the output needs, one at a time; an animated
    /// GIF or WebP as any transform of it (it stays animated), `fps`, `from` and `to` refused; a
    /// video's preview (``videoMotion(of:transform:accepting:processor:)``).
    /// - Throws: `ImagingError.notAnAnimation` for bytes of no moving kind, `invalidTransform`,
    ///   `outputTooLarge`; `LottieError`, `LottieRenderError`, `VideoFrameError`.
    func motionImage(
        of data: Data, transform: ImageTransform, accepting accepted: [OutputFormat]?, processor: ImageProcessor
    ) async throws -> EncodedImage {
        switch MovingSource(sniffing: data) {
        case .lottie:
            return try await lottieMotion(of: data, transform: transform, accepting: accepted, processor: processor)
        case .video:
            return try await videoMotion(of: data, transform: transform, accepting: accepted, processor: processor)
        case .animatedImage:
            guard transform.framesPerSecond == nil, transform.from == nil, transform.to == nil else {
                throw ImagingError.with(
                    .invalidTransform, "fps, from and to apply to a Lottie animation or a video; an animated GIF or WebP plays as it is")
            }
            let kept = { var kept = transform; kept.animate = false; return kept }()
            let plan = try await runDecoding { try processor.plan(for: data, transform: kept, accepting: accepted) }
            guard plan.isAnimated else {
                throw ImagingError.notAnAnimation("animate=1 was asked of a GIF or WebP image of one frame")
            }
            return try await decodeBudget.withReservation(of: plan.estimatedBytes + data.count) {
                try await runDecoding { [self] in
                    self.transforms.add(1, ordering: .relaxed)
                    return try processor.process(data, plan: plan, transform: kept)
                }
            }
        case nil:
            let what = ImageFormat(sniffing: data.prefix(64)).map { "a \($0.rawValue.uppercased()) image" } ?? "bytes that hold no animation"
            throw ImagingError.notAnAnimation(
                "animate=1 was asked of \(what): it animates a Lottie animation (JSON, dotLottie or .tgs), a video (MP4, WebM) or an animated GIF or WebP")
        }
    }

    /// The Lottie animation `data` holds (a dotLottie's default one) as an animation: its frames
    /// rendered at the width the transform's box needs and made into the output by a
    /// ``MotionWriter`` as they come.
    private func lottieMotion(
        of data: Data, transform: ImageTransform, accepting accepted: [OutputFormat]?, processor: ImageProcessor
    ) async throws -> EncodedImage {
        let document = try await lottie.read(data)
        guard let animation = document.defaultEntry?.animation else { throw LottieError.animationNotFound }
        let width = Self.renderWidth(
            naturalWidth: animation.width, naturalHeight: animation.height, transform: transform, configuration: processor.configuration)
        var motion = LottieMotion(
            format: MotionWriter.format(for: transform.format, accepting: accepted), framesPerSecond: transform.framesPerSecond,
            from: transform.from, to: transform.to, size: width.map { LottieFrameSize(width: $0) } ?? .natural)
        motion.maxFrames = processor.configuration.maxAnimationFrames
        let writer = try MotionWriter(transform: transform, accepting: accepted, configuration: processor.configuration)
        // a rendered frame, its resized copy and the output frame, held while the next renders
        let side = Double(width ?? Int((animation.width ?? 512).rounded()))
        let frameBytes = Int(side * side * (animation.height ?? 1) / max(1, animation.width ?? 1)) * 4
        return try await decodeBudget.withReservation(of: max(1 << 20, frameBytes * 4)) {
            self.transforms.add(1, ordering: .relaxed)
            try await lottie.renderFrames(of: animation, motion: motion) { bitmap, duration in
                try await self.runDecoding { try writer.add(bitmap, duration: duration) }
            }
            return try await runDecoding { try writer.finish() }
        }
    }

    /// A video's animated preview (``VideoMotion``) of the bytes `data` holds: in a worker of the
    /// Lottie util's render pool when it has one (`assetpipe worker` serves the job; its reads are
    /// answered from `data`), else here on a decoding thread.
    private func videoMotion(
        of data: Data, transform: ImageTransform, accepting accepted: [OutputFormat]?, processor: ImageProcessor
    ) async throws -> EncodedImage {
        let limits = VideoPreviewDecoder.Configuration(maxPixels: processor.configuration.maxSourcePixels)
        let configuration = processor.configuration, read = Self.reads(of: data), size = Int64(data.count)
        self.transforms.add(1, ordering: .relaxed)
        if let workers = lottie.configuration.renderWorkers {
            return try await VideoPreviewJob.run(
                on: workers, sourceSize: size, transform: transform, accepted: accepted, configuration: configuration, limits: limits,
                reads: read)
        }
        return try await runDecoding {
            try VideoMotion.make(
                VideoFrameSource(size: size, read: read), transform: transform, accepting: accepted, configuration: configuration,
                limits: limits)
        }
    }
}
