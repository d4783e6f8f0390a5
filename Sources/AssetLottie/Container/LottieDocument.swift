/// What a Lottie file holds: one animation (plain JSON or `.tgs`) or several (a dotLottie archive).
public struct LottieDocument: Sendable, Equatable {
    /// One animation and its id (in a dotLottie; `nil` otherwise).
    public struct Entry: Sendable, Equatable {
        /// The animation's id in a dotLottie (from the manifest, else its file name under
        /// `animations/` or `a/`); `nil` for plain JSON and `.tgs`.
        public var id: String?
        /// The parsed animation. In a dotLottie, the image assets whose files the archive holds are
        /// embedded as base64 `data:` URLs (`e` set to 1, `u` emptied).
        public var animation: LottieAnimation
        /// The bytes of JSON the animation was parsed from (after decompression), plus the `data:`
        /// URLs a dotLottie's images were embedded as: a measure of the model's size.
        public var sourceByteCount: Int = 0
    }

    /// The packaging that was sniffed from the bytes.
    public var format: LottieContainerFormat
    /// The manifest, for a dotLottie that has one.
    public var manifest: DotLottieManifest?
    /// The animations: in manifest order, or sorted by id for a dotLottie without a usable manifest.
    public var animations: [Entry]

    /// `true` for a dotLottie archive (even if it holds one animation).
    public var isDotLottie: Bool { format == .zip }
}
