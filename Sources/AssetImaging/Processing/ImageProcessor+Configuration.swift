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
        /// libavif's speed for AVIF, 0 (slow, small) ... 10 (fast). Default: 6 (libaom's own default).
        public var avifSpeed: Int
        /// Threads libaom may use for one AVIF encode. Default: 2 (one image encodes about 1.5x
        /// faster than on one thread; set 1 where every core already runs a transform of its own).
        public var avifThreads: Int
        /// libwebp's method for WebP, 0 (fast) ... 6 (small). Default: 4.
        public var webpMethod: Int
        /// The factor a JPEG's shrink-on-load leaves for the resize kernel: the largest DCT scale
        /// (1/2, 1/4, 1/8) whose output is still at least this many times the target. Default: 2,
        /// libvips's rule; 1 decodes smaller (faster, a little less sharp), as Pillow's `draft`.
        public var shrinkOnLoadMargin: Double
        /// Whether a large source (a megapixel or more after shrink-on-load) is decoded on a second
        /// thread while it is resampled, and an animation's frames are made on a second thread
        /// while they are encoded, so that one transform uses two cores. Default:
        /// `.whenCoresAreFree`.
        public var overlapDecoding: DecodeOverlap
        /// The most frames of an animated source (GIF, WebP) kept animated. Default: 5,000.
        public var maxAnimationFrames: Int
        /// The most source pixels of an animation, its canvas times its frames, checked before any
        /// frame is decoded. Default: 1,000,000,000 (1,000 frames of 1 megapixel).
        public var maxAnimationPixels: Int

        /// Creates a configuration; every default is the one written on its property.
        public init(
            maxSourcePixels: Int = 100_000_000, maxInputBytes: Int = 256 << 20, maxOutputPixels: Int = 50_000_000,
            maxOutputDimension: Int = 16_384, maxOutputBytes: Int = 64 << 20, avifSpeed: Int = 6, avifThreads: Int = 2, webpMethod: Int = 4,
            shrinkOnLoadMargin: Double = 2, overlapDecoding: DecodeOverlap = .whenCoresAreFree,
            maxAnimationFrames: Int = 5_000, maxAnimationPixels: Int = 1_000_000_000
        ) {
            self.maxSourcePixels = maxSourcePixels
            self.maxInputBytes = maxInputBytes
            self.maxOutputPixels = maxOutputPixels
            self.maxOutputDimension = maxOutputDimension
            self.maxOutputBytes = maxOutputBytes
            self.avifSpeed = avifSpeed
            self.avifThreads = avifThreads
            self.webpMethod = webpMethod
            self.shrinkOnLoadMargin = shrinkOnLoadMargin
            self.overlapDecoding = overlapDecoding
            self.maxAnimationFrames = maxAnimationFrames
            self.maxAnimationPixels = maxAnimationPixels
        }
    }

    /// When decoding overlaps resampling on a second thread (``Configuration-swift.struct/overlapDecoding``).
    public enum DecodeOverlap: Sendable, Hashable {
        /// Never: one thread per transform.
        case off
        /// When the process runs fewer transforms than half its cores: with more, the second thread
        /// would only take turns with another transform.
        case whenCoresAreFree
        /// Always, for large sources.
        case always
    }
}
