import AssetLottie

/// Which frame of an animation: a frame number from its start, or a fraction of its length.
///
/// Frames are counted from the animation's in point: `.frame(0)` is the frame at `ip`, and the
/// last is `frameCount - 1`, where `frameCount` is `op - ip` (each truncated toward zero, as
/// rlottie counts). Out-of-range values are refused (`LottieRenderError.frameOutOfRange`), not
/// clamped: a caller that wants "the last frame whatever the length" asks for `.progress(1)`.
public enum LottieFrameTime: Sendable, Hashable {
    /// The frame `n` frames after the in point: `0..<frameCount`.
    case frame(Int)
    /// A fraction of the animation: `0` is the first frame, `1` the last, and anything between
    /// the nearest frame (`(p * (frameCount - 1)).rounded()`).
    case progress(Double)

    /// The frame index this time names in an animation of `frameCount` frames.
    /// - Throws: `LottieRenderError.frameOutOfRange`.
    public func frameIndex(frameCount: Int) throws(LottieRenderError) -> Int {
        switch self {
        case .frame(let frame):
            guard frame >= 0, frame < frameCount else {
                throw .frameOutOfRange("frame \(frame) is outside 0..<\(frameCount)")
            }
            return frame
        case .progress(let progress):
            guard progress >= 0, progress <= 1, frameCount > 0 else {
                throw .frameOutOfRange("progress \(progress) is outside 0...1")
            }
            return Int((progress * Double(frameCount - 1)).rounded())
        }
    }
}

extension LottieFrameTime {
    /// The frame `seconds` after the in point of `animation`, at its frame rate, rounded down:
    /// 1.5 seconds at 30 frames a second is `.frame(45)`.
    /// - Throws: `LottieRenderError.frameOutOfRange` for an animation without a frame rate, or a
    ///   time past any frame.
    public static func seconds(_ seconds: Double, of animation: LottieAnimation) throws(LottieRenderError) -> LottieFrameTime {
        guard seconds >= 0, seconds.isFinite else { throw .frameOutOfRange("\(seconds)s is not a time in the animation") }
        guard let rate = animation.frameRate, rate > 0, rate.isFinite else {
            throw .frameOutOfRange("the animation has no frame rate to place \(seconds)s")
        }
        let frame = (seconds * rate).rounded(.down)
        guard frame < Double(Int32.max) else { throw .frameOutOfRange("\(seconds)s is past any frame") }
        return .frame(Int(frame))
    }
}
