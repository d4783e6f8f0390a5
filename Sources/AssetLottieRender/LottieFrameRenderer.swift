import AssetCodecs
import AssetLottie
import Synchronization

/// Renders frames of Lottie animations with rlottie into straight-alpha RGBA `Bitmap`s, the
/// format the image decoders give.
///
/// - **Checks first**: ``prepare(_:)`` takes a model our parser made (within its limits) and
///   refuses, before rlottie is called, a size that is not a positive integer or is past
///   ``Configuration-swift.struct/maxDimension``, an animation without frames, a cycle of parents
///   or of precompositions (which crash rlottie), nesting past ``Configuration-swift.struct/maxNesting``
///   embedded images past ``Configuration-swift.struct/maxImagePixels`` and path coordinates past
///   ``Configuration-swift.struct/maxPathCoordinate``. `render(_:at:size:)`
///   refuses a frame past ``Configuration-swift.struct/maxPixels`` or out of range. Each refusal is
///   a ``LottieRenderError``.
/// - **rlottie** is called once per frame, through one C++ entry point that catches its
///   exceptions, with no resource directory (it reads no file). rlottie's model cache is keyed by
///   the JSON's bytes themselves (a few entries), so the frames of one animation parse it once;
///   every call draws on a render tree of its own, as rlottie 0.1 carries state from one frame to
///   the next in a kept one. It must agree with our parser on the size and the frame count.
/// - **Synchronous and CPU-heavy**: call it off Swift's cooperative pool (a thread pool, or a
///   worker process: ``LottieRenderInput`` is plain bytes and three numbers).
///
/// ```swift
/// let renderer = LottieFrameRenderer()
/// let bitmap = try renderer.render(animation, at: .progress(0.5), size: LottieFrameSize(width: 320))
/// print(bitmap.width, bitmap.height)
/// ```
public final class LottieFrameRenderer: Sendable {
    /// The limits checked before rlottie runs.
    public let configuration: Configuration
    private let renders = Atomic<Int>(0)

    /// Creates a renderer with `configuration`'s limits.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Calls into rlottie made by this renderer (refusals make none).
    public var renderCount: Int { renders.load(ordering: .relaxed) }

    /// Prepares `animation` and renders one frame of it.
    /// - Throws: `LottieRenderError`.
    public func render(
        _ animation: LottieAnimation, at time: LottieFrameTime, size: LottieFrameSize = .natural
    ) throws(LottieRenderError) -> Bitmap {
        try render(try prepare(animation), at: time, size: size)
    }

    /// Renders the frame at `time` of `input`, `size` resolved against the animation's own.
    /// - Throws: `LottieRenderError`.
    public func render(
        _ input: LottieRenderInput, at time: LottieFrameTime, size: LottieFrameSize = .natural
    ) throws(LottieRenderError) -> Bitmap {
        let target = try size.resolved(naturalWidth: input.width, naturalHeight: input.height)
        try checkFrameSize(target.width, target.height)
        let frame = try time.frameIndex(frameCount: input.frameCount)
        renders.add(1, ordering: .relaxed)
        return try RLottieBridge.render(input, frame: frame, width: target.width, height: target.height)
    }

    /// Makes every check ``render(_:at:size:)-(LottieRenderInput,_,_)`` makes before rlottie runs, without
    /// rendering: for a frame rendered elsewhere (a worker process).
    /// - Throws: `LottieRenderError`.
    public func check(_ input: LottieRenderInput, at time: LottieFrameTime, size: LottieFrameSize = .natural) throws(LottieRenderError) {
        let target = try size.resolved(naturalWidth: input.width, naturalHeight: input.height)
        try checkFrameSize(target.width, target.height)
        _ = try time.frameIndex(frameCount: input.frameCount)
    }

    /// Refuses a frame size past the limits.
    func checkFrameSize(_ width: Int, _ height: Int) throws(LottieRenderError) {
        let maxDimension = configuration.maxDimension
        guard width <= maxDimension, height <= maxDimension else {
            throw .sizeTooLarge("a frame of \(width)x\(height) is past the limit of \(maxDimension) pixels a side")
        }
        let pixels = width.multipliedReportingOverflow(by: height)
        guard !pixels.overflow, pixels.partialValue <= configuration.maxPixels else {
            throw .sizeTooLarge("a frame of \(width)x\(height) is past the limit of \(configuration.maxPixels) pixels")
        }
    }
}
