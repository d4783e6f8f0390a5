extension ImageProcessor {
    /// The limits of every transform a processor makes, checked before any pixel memory is
    /// allocated.
    public struct Configuration: Sendable, Hashable {
        /// Largest declared source `width * height`. Default: 100_000_000 (100 megapixels).
        public var maxSourcePixels: Int
        /// Largest source, in bytes. Default: 256 MiB.
        public var maxInputBytes: Int
        /// Largest output `width * height` (padding included). Default: 50_000_000.
        public var maxOutputPixels: Int
        /// Largest output side, in pixels. Default: 16_384 (WebP's own limit is 16_383).
        public var maxOutputDimension: Int
        /// Largest encoded output, in bytes. Default: 64 MiB.
        public var maxOutputBytes: Int
        /// libavif's speed for AVIF, 0 (slow, small) ... 10 (fast). Default: 8.
        public var avifSpeed: Int
        /// libwebp's method for WebP, 0 (fast) ... 6 (small). Default: 4.
        public var webpMethod: Int

        /// Creates a configuration; every default is the one written on its property.
        public init(
            maxSourcePixels: Int = 100_000_000, maxInputBytes: Int = 256 << 20, maxOutputPixels: Int = 50_000_000,
            maxOutputDimension: Int = 16_384, maxOutputBytes: Int = 64 << 20, avifSpeed: Int = 8, webpMethod: Int = 4
        ) {
            self.maxSourcePixels = maxSourcePixels
            self.maxInputBytes = maxInputBytes
            self.maxOutputPixels = maxOutputPixels
            self.maxOutputDimension = maxOutputDimension
            self.maxOutputBytes = maxOutputBytes
            self.avifSpeed = avifSpeed
            self.webpMethod = webpMethod
        }
    }
}
