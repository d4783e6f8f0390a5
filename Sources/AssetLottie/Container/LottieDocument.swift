/// What a Lottie file holds: one animation (plain JSON or `.tgs`) or several (a dotLottie archive).
public struct LottieDocument: Sendable, Equatable {
    /// One animation and its id (the manifest's id in a dotLottie; `nil` otherwise).
    public struct Entry: Sendable, Equatable {
        public var id: String?
        public var animation: LottieAnimation
        /// The bytes of JSON the animation was parsed from (after decompression), plus the `data:`
        /// URLs a dotLottie's images were embedded as: a measure of the model's size.
        public var sourceByteCount: Int = 0
    }

    /// The packaging that was sniffed from the bytes.
    public var format: LottieContainerFormat
    /// The manifest, for a dotLottie that has one.
    public var manifest: DotLottieManifest?
    /// The animations, in manifest order.
    public var animations: [Entry]

    /// `true` for a dotLottie archive (even if it holds one animation).
    public var isDotLottie: Bool { format == .zip }
}
