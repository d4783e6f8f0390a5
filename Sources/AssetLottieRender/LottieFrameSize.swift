/// The size of a rendered frame: the animation's own (`w` x `h`), or a width, a height, or both.
///
/// With one side given, the other follows the animation's aspect ratio (rounded, at least 1).
/// With both given, the animation is fitted inside, centred, and the rest is transparent (what
/// rlottie does).
public struct LottieFrameSize: Sendable, Hashable {
    /// The width in pixels, or nil to follow the height (or the animation's own `w`).
    public var width: Int?
    /// The height in pixels, or nil to follow the width (or the animation's own `h`).
    public var height: Int?

    /// A size; leave both nil for the animation's own.
    public init(width: Int? = nil, height: Int? = nil) {
        self.width = width
        self.height = height
    }

    /// The animation's own size, `w` x `h`.
    public static let natural = LottieFrameSize()

    /// The size in pixels for an animation of `naturalWidth` x `naturalHeight` (both positive).
    /// - Throws: `LottieRenderError.invalidSize` for a side that is not positive.
    public func resolved(naturalWidth: Int, naturalHeight: Int) throws(LottieRenderError) -> (width: Int, height: Int) {
        for side in [width, height].compactMap({ $0 }) where side <= 0 {
            throw .invalidSize("a frame's width and height must be positive (asked \(side))")
        }
        switch (width, height) {
        case (nil, nil):
            return (naturalWidth, naturalHeight)
        case (let width?, nil):
            return (width, Self.scaled(width, by: naturalHeight, over: naturalWidth))
        case (nil, let height?):
            return (Self.scaled(height, by: naturalWidth, over: naturalHeight), height)
        case (let width?, let height?):
            return (width, height)
        }
    }

    /// `side * numerator / denominator`, rounded, at least 1; huge results saturate (the limits
    /// refuse them).
    private static func scaled(_ side: Int, by numerator: Int, over denominator: Int) -> Int {
        let value = (Double(side) * Double(numerator) / Double(denominator)).rounded()
        return value >= Double(Int32.max) ? Int(Int32.max) : max(1, Int(value))
    }
}
