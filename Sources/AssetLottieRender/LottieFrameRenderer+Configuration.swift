extension LottieFrameRenderer {
    /// The renderer's limits, each checked before rlottie is called.
    public struct Configuration: Sendable, Hashable {
        /// Widest or tallest side, of the animation (`w`, `h`) and of a rendered frame.
        /// Default 16,384.
        public var maxDimension: Int = 16_384
        /// Most pixels of a rendered frame. Default 16,777,216 (4096 x 4096: 64 MiB of RGBA).
        public var maxPixels: Int = 4096 * 4096
        /// Most pixels of the embedded images of one animation together, from their headers
        /// (rlottie decodes each whole). Default 33,554,432 (128 MiB of RGBA).
        public var maxImagePixels: Int = 32 << 20
        /// Deepest nesting of precompositions (rlottie recurses once per level). Default 64.
        public var maxNesting: Int = 64
        /// Most frames from `ip` to `op`. Default 1,000,000 (over nine hours at 30 fps).
        public var maxFrameCount: Int = 1_000_000
        /// Largest magnitude of a coordinate of a path's or a mask's vertex or tangent (`v`,
        /// `i`, `o`), in the layer's own units: rlottie's rasterizer takes time in proportion
        /// to how far an edge reaches, inside the frame or not (one mask vertex at 1e8 under a
        /// 2135% scale: 4 s a frame). Default 1,000,000 (0.08 s there; the largest in our
        /// corpus of real files is 5,607).
        public var maxPathCoordinate: Double = 1_000_000

        /// The default limits, each written on its property.
        public init() {}
    }
}
