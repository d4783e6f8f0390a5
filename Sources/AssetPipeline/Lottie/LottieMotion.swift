import AssetImaging
import AssetLottie
import AssetLottieRender

/// How a Lottie animation becomes an animated image: the format (animated WebP, GIF or MP4), the frame
/// rate, the range and the size, for ``LottieUtil/animatedImage(of:motion:)`` and `assetpipe convert
/// ANIMATION --animate`.
///
/// The output's frame `k` shows the animation's frame `from + floor(k * rate / fps)`, the
/// animation's own frame rate `rate`, for as long as that frame is at most `to`; each is shown for
/// `1000 / fps` ms, rounded so that the durations add up to the whole. Every output frame is the
/// still frame ``LottieUtil/frame(of:at:size:)`` renders for that index.
///
/// ```swift
/// var motion = LottieMotion(format: .webp, size: LottieFrameSize(width: 320))
/// motion.framesPerSecond = 15
/// let sticker = try await lottie.animatedImage(of: animation, motion: motion)
/// ```
public struct LottieMotion: Sendable, Hashable {
    /// `.webp` (animated WebP), `.gif` or `.mp4` (H.264; the background under transparent
    /// pixels is ``background``). Default: `.webp`.
    public var format: OutputFormat
    /// Output frames a second, above 0 and at most 100; nil for the animation's own rate. Default: nil.
    public var framesPerSecond: Double?
    /// The first frame (`30`, `10%`, `0.5s`), nil for the animation's first. Default: nil.
    public var from: FrameSpec?
    /// The last frame, included, nil for the animation's last. Default: nil.
    public var to: FrameSpec?
    /// The frames' size (the animation's own by default).
    public var size: LottieFrameSize
    /// Encoder quality 1...100, nil for the format's default (WebP 80; MP4 55, x264's CRF 23). Default: nil.
    public var quality: Int?
    /// Lossless WebP. Default: false.
    public var lossless: Bool
    /// How many times it plays, 0 forever. Default: 0.
    public var plays: Int
    /// The most output frames. Default: 1,000.
    public var maxFrames: Int
    /// The largest output, in bytes. Default: 64 MiB.
    public var maxOutputBytes: Int
    /// The colour under transparent pixels in an MP4 (H.264 holds no alpha). Default: white.
    public var background: RGBColor

    /// Creates a motion; every parameter defaults to the value documented on its property.
    public init(
        format: OutputFormat = .webp, framesPerSecond: Double? = nil, from: FrameSpec? = nil, to: FrameSpec? = nil,
        size: LottieFrameSize = .natural, quality: Int? = nil, lossless: Bool = false, plays: Int = 0,
        maxFrames: Int = 1_000, maxOutputBytes: Int = 64 << 20, background: RGBColor = .white
    ) {
        self.format = format
        self.framesPerSecond = framesPerSecond
        self.from = from
        self.to = to
        self.size = size
        self.quality = quality
        self.lossless = lossless
        self.plays = plays
        self.maxFrames = maxFrames
        self.maxOutputBytes = maxOutputBytes
        self.background = background
    }

    /// One output frame: the animation's frame index and how long it is shown.
    public struct Step: Sendable, Hashable {
        /// The frame from the in point, as `LottieFrameTime.frame(_:)` counts.
        public var frame: Int
        /// Milliseconds.
        public var duration: Int
    }

    /// The output frames for an animation of `frameCount` frames (`LottieRenderInput.frameCount`).
    /// - Throws: `ImagingError` (`invalidTransform` for a format that holds no animation, a frame
    ///   rate out of range, an empty range; `outputTooLarge` past ``maxFrames``), and
    ///   `LottieRenderError.frameOutOfRange` for a bound outside the animation.
    public func steps(of animation: LottieAnimation, frameCount: Int) throws -> [Step] {
        guard format.supportsAnimation else {
            throw ImagingError.with(.invalidTransform, "an animation is written as WebP, GIF or MP4, not \(format)")
        }
        guard let rate = animation.frameRate, rate.isFinite, rate > 0 else {
            throw ImagingError.with(.invalidTransform, "the animation has no frame rate")
        }
        let fps = framesPerSecond ?? rate
        guard fps.isFinite, fps > 0, fps <= 100 else {
            throw ImagingError.with(.invalidTransform, "fps must be above 0 and at most 100 (got \(fps))")
        }
        let first = try from.map { try LottieFrameTime($0, of: animation).frameIndex(frameCount: frameCount) } ?? 0
        let last = try to.map { try LottieFrameTime($0, of: animation).frameIndex(frameCount: frameCount) } ?? frameCount - 1
        guard last >= first else { throw ImagingError.with(.invalidTransform, "the range ends (\(last)) before it starts (\(first))") }
        var steps: [Step] = []
        var k = 0
        while true {
            let frame = first + Int((Double(k) * rate / fps + 1e-9).rounded(.down))
            if frame > last { break }
            guard steps.count < maxFrames else {
                throw ImagingError.with(.outputTooLarge, "the animation would have more than \(maxFrames) frames at \(fps) fps")
            }
            let start = (Double(k) * 1000 / fps).rounded(), end = (Double(k + 1) * 1000 / fps).rounded()
            steps.append(Step(frame: frame, duration: Int(end - start)))
            k += 1
        }
        return steps
    }
}

extension ImagingError {
    /// An error of `kind`'s code with this message.
    static func with(_ kind: ImagingError, _ message: String) -> ImagingError {
        ImagingError(code: kind.shortDescription, message: message) ?? kind
    }
}
