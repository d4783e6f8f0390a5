import AssetImaging
import AssetLottie
import AssetLottieRender

/// The frame of a Lottie animation that a frame spec (`30`, `50%`, `1.5s`) names.
extension LottieFrameTime {
    /// The frame of `animation` that a frame spec (`30`, `50%`, `1.5s`) names: a frame number from
    /// the in point, a position (`50%` is `.progress(0.5)`), or a time at the animation's frame rate
    /// (`LottieFrameTime.seconds(_:of:)`).
    /// - Throws: `LottieRenderError.frameOutOfRange` for a time in an animation without a frame rate.
    public init(_ spec: FrameSpec, of animation: LottieAnimation) throws(LottieRenderError) {
        switch spec {
        case .number(let frame): self = .frame(frame)
        case .percent(let percent): self = .progress(percent / 100)
        case .seconds(let seconds): self = try .seconds(seconds, of: animation)
        }
    }
}
