import AssetCodecs

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes an ``ImageTransform`` of an animated GIF or WebP into an animation (animated WebP or GIF):
/// every frame composited with its disposal and blending, resized, cropped and padded by the same
/// plan (a smart crop's window is chosen on the first frame and kept), and encoded with its
/// duration; the loop count is kept. One canvas and a few output frames at a time. When a core is
/// free (``ImageProcessor/Configuration-swift.struct/overlapDecoding``), frames are made on a second
/// thread while the encoder takes the ones before (`FramePipeline`): one animation on two cores.
///
/// ``ImageProcessor`` sends a plan here when ``TransformPlan/isAnimated``; a still output format
/// (JPEG, PNG, AVIF) of an animated source gets its first frame, as imgproxy gives, and
/// ``frame(of:at:)`` gives any frame as a still.
///
/// Limits, before any frame is decoded: the canvas against `maxSourcePixels`, the frames against
/// ``ImageProcessor/Configuration-swift.struct/maxAnimationFrames`` and the canvas times the frames
/// against ``ImageProcessor/Configuration-swift.struct/maxAnimationPixels``; the output against
/// `maxOutputBytes` while it is written.
public struct AnimationProcessor: Sendable {
    /// The limits and encoder settings.
    public var configuration: ImageProcessor.Configuration

    /// Creates a processor with `configuration`'s limits.
    public init(configuration: ImageProcessor.Configuration = ImageProcessor.Configuration()) {
        self.configuration = configuration
    }

    var readerLimits: AnimationReader.Limits {
        AnimationReader.Limits(
            maxCanvasPixels: configuration.maxSourcePixels, maxFrames: configuration.maxAnimationFrames,
            maxTotalPixels: configuration.maxAnimationPixels)
    }

    /// Makes `transform` of the animated `data` along `plan` (``TransformPlan/isAnimated``).
    /// - Throws: `CodecError` for a source that does not read, ``ImagingError`` for limits and the
    ///   encoders.
    public func process(_ data: some ContiguousBytes & Sendable, plan: TransformPlan, transform: ImageTransform) throws -> EncodedImage {
        guard plan.isAnimated else { throw ImagingError.invalidTransform("the plan is not an animation's") }
        ImageProcessor.running.add(1, ordering: .relaxed)
        defer { ImageProcessor.running.subtract(1, ordering: .relaxed) }
        let reader = try AnimationReader(data, limits: readerLimits)
        guard reader.info.width == plan.header.width, reader.info.height == plan.header.height else {
            throw Self.codecError(.corrupt, "the animation's canvas differs from its header's")
        }
        let still = ImageProcessor(configuration: configuration)
        var options = still.encoderOptions(transform)
        options.maxOutputBytes = configuration.maxOutputBytes
        let info = reader.info
        var cropOrigin: (x: Int, y: Int)?
        let resizer = try FrameResizer(
            sourceWidth: info.width, sourceHeight: info.height, width: plan.resizeWidth, height: plan.resizeHeight,
            kernel: transform.kernel, opaque: !info.hasAlpha, maxWorkBytes: plan.estimatedBytes * 2)
        // The next output frame: decoded, composited, resized, upright, cropped and padded.
        let make: () throws -> (Bitmap, Int)? = {
            guard let frame = try reader.next() else { return nil }
            var bitmap = try resizer.resize(frame.bitmap)
            bitmap = try ImagingBridge.orient(bitmap, orientation: plan.orientation)
            bitmap = still.crop(bitmap, plan: plan, transform: transform, origin: &cropOrigin)
            bitmap = still.pad(bitmap, plan: plan, transform: transform)
            return (bitmap, frame.duration)
        }
        var encoder: AnimatedImageEncoder?
        let encode = { (bitmap: Bitmap, duration: Int) throws in
            if encoder == nil {
                let alpha = info.hasAlpha || !ImagingBridge.isOpaque(bitmap)
                encoder = try AnimatedImageEncoder(
                    format: plan.format, width: bitmap.width, height: bitmap.height, plays: info.plays, hasAlpha: alpha,
                    options: options)
            }
            // A video shows no frame for 0 ms: a GIF's delays under 20 ms are 100 ms, as browsers
            // and ffmpeg's GIF reader play them.
            try encoder!.add(bitmap, duration: plan.format == .mp4 && duration < 20 ? 100 : duration)
        }
        // Frames are made on a second thread while they are encoded when a core is free for it
        // (the policy of overlapped JPEG decoding), else one after the other here.
        let overlapped = switch configuration.overlapDecoding {
        case .off: false
        case .always: true
        case .whenCoresAreFree: ImageProcessor.running.load(ordering: .relaxed) * 2 <= ImageProcessor.cores
        }
        if overlapped {
            try FramePipeline(make: make).run(encode)
        } else {
            while let (bitmap, duration) = try make() { try encode(bitmap, duration) }
        }
        guard let encoder else { throw Self.codecError(.corrupt, "the animation has no frame") }
        let bytes = try encoder.finish()
        return EncodedImage(bytes: bytes, format: plan.format, width: encoder.outputWidth, height: encoder.outputHeight)
    }

    /// The still frame `spec` names of an animated GIF or WebP, composited onto the canvas: a
    /// number counts frames from 0 (past the last: `CodecError.noSuchPage`), a percentage or a time
    /// finds the frame shown then (the durations as written; an animation whose durations are all 0
    /// counts 100 ms a frame, as browsers show it).
    /// - Throws: `CodecError`.
    public func frame(of data: some ContiguousBytes, at spec: FrameSpec) throws -> Bitmap {
        let reader = try AnimationReader(data, limits: readerLimits)
        let count = reader.info.frameCount
        let target: Int
        switch spec {
        case .number(let number):
            guard number < count else { throw Self.codecError(.noSuchPage, "frame \(number) of an animation of \(count) frames") }
            target = number
        case .percent, .seconds:
            // The durations from the records, without decoding a frame.
            var durations = reader.durations()
            if durations.allSatisfy({ $0 == 0 }) { durations = durations.map { _ in 100 } }
            let total = durations.reduce(0, +)
            let at: Double = if case .percent(let percent) = spec { Double(total) * percent / 100 } else if case .seconds(let seconds) = spec { seconds * 1000 } else { 0 }
            var found = max(0, durations.count - 1)
            var elapsed = 0
            for (index, duration) in durations.enumerated() {
                if Double(elapsed + duration) > at {
                    found = index
                    break
                }
                elapsed += duration
            }
            target = found
        }
        while let frame = try reader.next() {
            if frame.index == target { return frame.bitmap }
        }
        throw Self.codecError(.noSuchPage, "the animation ended before frame \(target)")
    }

    /// A codec error of `kind`'s code with this message.
    static func codecError(_ kind: CodecError, _ message: String) -> CodecError {
        CodecError(code: kind.shortDescription, message: message) ?? kind
    }
}
