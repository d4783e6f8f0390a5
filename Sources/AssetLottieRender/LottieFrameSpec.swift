import AssetLottie

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A frame as people write it (`assetpipe convert --frame`, `assetpipe-bench lottie-frames
/// --frame`): a frame number from the in point (`30`), a position (`50%`) or a time (`1.5s`, at the
/// animation's frame rate).
public enum LottieFrameSpec: Sendable, Hashable {
    /// A frame number from the in point.
    case number(Int)
    /// A position from 0 to 100 percent of the frames.
    case percent(Double)
    /// A time in seconds from the in point, at the animation's frame rate.
    case seconds(Double)

    /// The spec `text` names, or nil when it is none of the three forms.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("%"), let value = Double(trimmed.dropLast()), value.isFinite, (0...100).contains(value) {
            self = .percent(value)
        } else if trimmed.hasSuffix("s"), let value = Double(trimmed.dropLast()), value.isFinite, value >= 0 {
            self = .seconds(value)
        } else if let value = Int(trimmed), value >= 0 {
            self = .number(value)
        } else {
            return nil
        }
    }

    /// The frame of `animation` it names.
    /// - Throws: `LottieRenderError.frameOutOfRange` for a time in an animation without a frame rate.
    public func time(of animation: LottieAnimation) throws(LottieRenderError) -> LottieFrameTime {
        switch self {
        case .number(let frame): return .frame(frame)
        case .percent(let percent): return .progress(percent / 100)
        case .seconds(let seconds):
            guard let rate = animation.frameRate, rate > 0, rate.isFinite else {
                throw .frameOutOfRange("the animation has no frame rate to place \(seconds)s")
            }
            let frame = (seconds * rate).rounded(.down)
            guard frame < Double(Int32.max) else { throw .frameOutOfRange("\(seconds)s is past any frame") }
            return .frame(Int(frame))
        }
    }
}
