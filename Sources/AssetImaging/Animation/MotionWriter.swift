import AssetCodecs

/// The frames of a moving source that is not an animated image (a Lottie animation's renders, a
/// video's decoded frames) made into an animation by one ``ImageTransform``: each frame resized,
/// cropped (one window for all, chosen on the first) and padded by the plan of the first, then
/// encoded as animated WebP, GIF or MP4 with its duration. Frames come one at a time: memory is a
/// frame, its resized copies and the encoder's state, whatever the length.
///
/// The format: the transform's, or for `format=auto` WebP when the caller takes it (or did not
/// say), else GIF. Limits: every frame's output against `maxOutputPixels` (the plan), the frames
/// times the output pixels against ``ImageProcessor/Configuration-swift.struct/maxAnimationPixels``
/// and the frames against ``ImageProcessor/Configuration-swift.struct/maxAnimationFrames`` as they
/// come, the output against `maxOutputBytes` while it is written.
///
/// One writer belongs to one task: its calls must not overlap (it is `Sendable` so that they can
/// run, awaited in turn, on decoding threads). Synchronous CPU work.
///
/// ```swift
/// let writer = try MotionWriter(transform: ImageTransform(width: 320, format: .format(.mp4), animate: true), accepting: nil)
/// for (bitmap, milliseconds) in frames { try writer.add(bitmap, duration: milliseconds) }
/// let video = try writer.finish()
/// ```
public final class MotionWriter: @unchecked Sendable {
    /// The output format.
    public let format: OutputFormat
    private let transform: ImageTransform
    private let configuration: ImageProcessor.Configuration
    /// The still processor whose crop, padding and encoder options every frame takes.
    private let still: ImageProcessor
    private let plays: Int
    private let hasAlpha: Bool
    private var plan: TransformPlan?
    private var resizer: FrameResizer?
    private var cropOrigin: (x: Int, y: Int)?
    private var encoder: AnimatedImageEncoder?
    private var frames = 0

    /// A writer of `transform` (its format `.auto` or one that holds an animation) playing `plays`
    /// times (0: forever). `hasAlpha`: some frame may have transparent pixels (a video's have none;
    /// padding that shows through is seen on the first frame).
    /// - Throws: ``ImagingError/invalidTransform`` for a still format or values out of range.
    public init(
        transform: ImageTransform, accepting accepted: [OutputFormat]?,
        configuration: ImageProcessor.Configuration = ImageProcessor.Configuration(), plays: Int = 0, hasAlpha: Bool = true
    ) throws {
        try transform.validate(maxOutputDimension: configuration.maxOutputDimension)
        format = Self.format(for: transform.format, accepting: accepted)
        guard format.supportsAnimation else {
            throw ImagingError.invalidTransform("an animation is written as WebP, GIF or MP4, not \(format)")
        }
        var planned = transform
        planned.format = .format(format)
        self.transform = planned
        self.configuration = configuration
        still = ImageProcessor(configuration: configuration)
        self.plays = plays
        self.hasAlpha = hasAlpha
    }

    /// The format of an animation made for a caller that takes `accepted`: the one asked for, or
    /// for `auto` WebP when the caller takes it or did not say, else GIF (which every client takes).
    public static func format(for choice: ImageTransform.FormatChoice, accepting accepted: [OutputFormat]?) -> OutputFormat {
        if case .format(let format) = choice { return format }
        return accepted.map { $0.contains(.webp) ? .webp : .gif } ?? .webp
    }

    /// Adds a frame (straight-alpha RGBA8, every frame the size of the first) shown for `duration`
    /// milliseconds.
    /// - Throws: ``ImagingError``; the writer is then done.
    public func add(_ frame: Bitmap, duration: Int) throws {
        if plan == nil {
            let header = ImageHeader(format: .png, width: frame.width, height: frame.height, channels: 4, colorSpace: .rgba, hasAlpha: true)
            plan = try TransformPlan(header: header, transform: transform, accepted: nil, configuration: configuration)
        }
        let plan = plan!
        guard frame.width == plan.header.width, frame.height == plan.header.height else {
            throw ImagingError.invalidTransform("a frame of \(frame.width)x\(frame.height) after frames of \(plan.header.width)x\(plan.header.height)")
        }
        frames += 1
        let outputPixels = plan.geometry.outputWidth * plan.geometry.outputHeight
        guard frames <= configuration.maxAnimationFrames, frames * outputPixels <= configuration.maxAnimationPixels else {
            throw ImagingError.outputTooLarge(
                "\(frames) frames of \(plan.geometry.outputWidth)x\(plan.geometry.outputHeight) are past the limits (\(configuration.maxAnimationFrames) frames, \(configuration.maxAnimationPixels) pixels)")
        }
        if resizer == nil {
            resizer = try FrameResizer(
                sourceWidth: frame.width, sourceHeight: frame.height, width: plan.resizeWidth, height: plan.resizeHeight,
                kernel: transform.kernel, opaque: !hasAlpha, maxWorkBytes: plan.estimatedBytes * 2)
        }
        var bitmap = try resizer!.resize(frame)
        bitmap = still.crop(bitmap, plan: plan, transform: transform, origin: &cropOrigin)
        bitmap = still.pad(bitmap, plan: plan, transform: transform)
        if encoder == nil {
            var options = still.encoderOptions(transform)
            options.maxOutputBytes = configuration.maxOutputBytes
            encoder = try AnimatedImageEncoder(
                format: format, width: bitmap.width, height: bitmap.height, plays: plays,
                hasAlpha: hasAlpha || !ImagingBridge.isOpaque(bitmap), options: options)
        }
        try encoder!.add(bitmap, duration: duration)
    }

    /// Ends the animation and gives it.
    /// - Throws: ``ImagingError`` (`encodeFailed` without a frame, `outputTooLarge`).
    public func finish() throws -> EncodedImage {
        guard let encoder else { throw ImagingError.encodeFailed("\(format): an animation needs at least one frame") }
        let bytes = try encoder.finish()
        return EncodedImage(bytes: bytes, format: format, width: encoder.outputWidth, height: encoder.outputHeight)
    }
}
