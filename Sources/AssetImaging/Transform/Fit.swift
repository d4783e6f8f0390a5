extension ImageTransform {
    /// How the image fills a box of both `width` and `height` (with one side given, every fit keeps
    /// the aspect ratio and scales to that side). The names and meanings are sharp's.
    public enum Fit: String, Sendable, Hashable, CaseIterable {
        /// Scale to cover the box, then crop to it at ``ImageTransform/gravity``: exactly the box.
        case cover
        /// Scale to fit inside the box, then pad to it with the background: exactly the box.
        case contain
        /// Stretch to the box, ignoring the aspect ratio: exactly the box.
        case fill
        /// Scale to fit inside the box, no padding: at most the box (the default).
        case inside
        /// Scale to cover the box, no crop: at least the box.
        case outside
    }
}
