import CAssetCodecs

/// What an image's header declares, read without decoding or allocating its pixels.
public struct ImageHeader: Sendable, Hashable {
    /// The colour model stored in the file, before conversion to RGBA.
    public enum ColorSpace: String, Sendable, Hashable {
        /// Gray (PNG gray, JPEG grayscale).
        case gray
        /// Gray with alpha (PNG).
        case grayAlpha
        /// Red, green, blue (PNG truecolour; a JPEG stored as RGB).
        case rgb
        /// Red, green, blue, alpha (PNG).
        case rgba
        /// Indexes into a palette (PNG).
        case palette
        /// YCbCr (most JPEGs).
        case yCbCr
        /// CMYK (JPEG).
        case cmyk
        /// YCCK: CMYK stored as YCbCr plus K (JPEG).
        case ycck
        /// Any other colour model the library reports.
        case unknown
    }

    /// The format the header was read from (``ImageFormat/png`` or ``ImageFormat/jpeg``).
    public var format: ImageFormat
    /// Declared width in pixels.
    public var width: Int
    /// Declared height in pixels.
    public var height: Int
    /// Channels stored in the file (PNG: 1-4; JPEG: components).
    public var channels: Int
    /// Bits per sample (PNG: 1-16; JPEG: data precision).
    public var bitDepth: Int
    /// Adam7-interlaced PNG or progressive JPEG.
    public var isInterlaced: Bool
    /// The colour model stored in the file.
    public var colorSpace: ColorSpace
    /// An alpha channel or a `tRNS` chunk.
    public var hasAlpha: Bool
    /// EXIF orientation (1-8) when the header has one. Decoded pixels are not rotated.
    public var orientation: Int?

    /// Declared pixel count.
    public var pixelCount: Int { width * height }

    /// A header of pixels that come from elsewhere than a file (a rendered frame, say), described
    /// as the file they could be stored in.
    public init(
        format: ImageFormat, width: Int, height: Int, channels: Int, bitDepth: Int = 8, isInterlaced: Bool = false,
        colorSpace: ColorSpace, hasAlpha: Bool, orientation: Int? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.bitDepth = bitDepth
        self.isInterlaced = isInterlaced
        self.colorSpace = colorSpace
        self.hasAlpha = hasAlpha
        self.orientation = orientation
    }

    init(_ header: apc_header, format: ImageFormat) {
        self.format = format
        self.width = Int(header.width)
        self.height = Int(header.height)
        self.channels = Int(header.channels)
        self.bitDepth = Int(header.bit_depth)
        self.isInterlaced = header.interlaced != 0
        self.colorSpace = ColorSpace(header.color_space)
        self.hasAlpha = header.has_alpha != 0
        self.orientation = header.orientation == 0 ? nil : Int(header.orientation)
    }
}

extension ImageHeader.ColorSpace {
    init(_ value: Int32) {
        switch UInt32(bitPattern: value) {
        case APC_COLOR_GRAY.rawValue: self = .gray
        case APC_COLOR_GRAY_ALPHA.rawValue: self = .grayAlpha
        case APC_COLOR_RGB.rawValue: self = .rgb
        case APC_COLOR_RGBA.rawValue: self = .rgba
        case APC_COLOR_PALETTE.rawValue: self = .palette
        case APC_COLOR_YCBCR.rawValue: self = .yCbCr
        case APC_COLOR_CMYK.rawValue: self = .cmyk
        case APC_COLOR_YCCK.rawValue: self = .ycck
        default: self = .unknown
        }
    }
}
