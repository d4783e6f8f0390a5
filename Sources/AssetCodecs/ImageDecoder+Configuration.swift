extension ImageDecoder {
    /// Limits and output options of an `ImageDecoder`.
    public struct Configuration: Sendable, Hashable {
        /// Largest declared `width * height` accepted, checked on the header before any pixel memory
        /// is allocated (and again inside the C layer). Default: 100_000_000 (100 megapixels).
        public var pixelBudget: Int
        /// Largest input accepted, in bytes. Default: 256 MiB.
        public var maxInputBytes: Int
        /// When set, the output is scaled down (aspect ratio kept) so that neither side exceeds it:
        /// JPEG first by libjpeg-turbo's DCT scaling (1/2, 1/4, 1/8) to the smallest scale at or
        /// above the target, then by an area-averaging resize; WebP by libwebp's scaled decode and
        /// SVG redrawn, straight at the target; the other formats by the resize. Default: nil (full
        /// size).
        ///
        /// Images already within it are not enlarged; 0 or a negative value means full size.
        public var maxDimension: Int?
        /// Largest ancillary PNG chunk libpng may allocate, in bytes. Default: 8_000_000.
        public var maxChunkBytes: Int
        /// The image of a file that holds several: a TIFF's directory or a HEIF's top-level image,
        /// by index in file order from 0. Default: nil, the first directory of a TIFF, the primary
        /// image of a HEIF. Formats of one image accept nil and 0 only (`CodecError.noSuchPage`).
        public var page: Int?

        /// Creates a configuration; every default is the one written on its property.
        public init(
            pixelBudget: Int = 100_000_000,
            maxInputBytes: Int = 256 << 20,
            maxDimension: Int? = nil,
            maxChunkBytes: Int = 8_000_000,
            page: Int? = nil
        ) {
            self.pixelBudget = pixelBudget
            self.maxInputBytes = maxInputBytes
            self.maxDimension = maxDimension
            self.maxChunkBytes = maxChunkBytes
            self.page = page
        }
    }
}
