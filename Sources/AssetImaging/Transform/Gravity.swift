extension ImageTransform {
    /// Where a crop (`fit=cover`) keeps the image, or where a padded image sits (`fit=contain`).
    public enum Gravity: String, Sendable, Hashable, CaseIterable {
        /// The middle.
        case center
        /// The top edge, centred.
        case north
        /// The bottom edge, centred.
        case south
        /// The right edge, centred.
        case east
        /// The left edge, centred.
        case west
        /// The top right corner.
        case northeast
        /// The top left corner.
        case northwest
        /// The bottom right corner.
        case southeast
        /// The bottom left corner.
        case southwest
        /// The crop window whose luminance histogram has the most entropy (the busiest part).
        case entropy
        /// The crop window with the most edges, saturated colour and skin tones (what draws the
        /// eye), a simpler cousin of libvips's `attention`.
        case attention

        /// The fractions (0 left/top ... 1 right/bottom) of a fixed gravity, or nil for smart ones.
        var anchor: (x: Double, y: Double)? {
            switch self {
            case .center: (0.5, 0.5)
            case .north: (0.5, 0)
            case .south: (0.5, 1)
            case .east: (1, 0.5)
            case .west: (0, 0.5)
            case .northeast: (1, 0)
            case .northwest: (0, 0)
            case .southeast: (1, 1)
            case .southwest: (0, 1)
            case .entropy, .attention: nil
            }
        }
    }
}
