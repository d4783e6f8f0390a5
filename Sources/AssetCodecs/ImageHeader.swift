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

    /// The colour description of an image coded with CICP values (ITU-T H.273: AVIF's and HEIF's
    /// `nclx`, JPEG XL's colour encoding), beside or instead of an ICC profile.
    public struct CICP: Sendable, Hashable, CustomStringConvertible {
        /// Colour primaries: 1 BT.709/sRGB, 9 BT.2020, 12 Display P3.
        public var colorPrimaries: Int
        /// Transfer characteristics: 13 sRGB, 16 PQ (SMPTE ST 2084), 18 HLG.
        public var transferCharacteristics: Int
        /// Matrix coefficients: 0 identity (RGB), 1 BT.709, 6 BT.601, 9 BT.2020.
        public var matrixCoefficients: Int

        /// Creates a description from its three code points.
        public init(colorPrimaries: Int, transferCharacteristics: Int, matrixCoefficients: Int) {
            self.colorPrimaries = colorPrimaries
            self.transferCharacteristics = transferCharacteristics
            self.matrixCoefficients = matrixCoefficients
        }

        /// Whether the transfer is one of high dynamic range: PQ or HLG.
        public var isHDR: Bool { transferCharacteristics == 16 || transferCharacteristics == 18 }

        /// `primaries/transfer/matrix`, as the code points: `1/13/6`.
        public var description: String { "\(colorPrimaries)/\(transferCharacteristics)/\(matrixCoefficients)" }
    }

    /// The format the header was read from.
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
    /// The orientation (1-8, as EXIF's) that the decoded pixels still need: a JPEG's, WebP's or
    /// PNG's EXIF orientation, a TIFF's Orientation tag, a JPEG XL's, an AVIF's `irot`/`imir`. Nil
    /// when the file has none, or its library applies it while decoding (HEIF's transformations).
    /// Decoded pixels are not rotated.
    public var orientation: Int?
    /// Frames of an animation (GIF, WebP, an AVIF sequence) or pages of a document (TIFF
    /// directories, HEIF top-level images); 1 for a single image.
    public var frameCount: Int
    /// Whether the file embeds an ICC profile (see ``ImageDecoder/metadata(of:)``); read from the
    /// header for the formats after PNG and JPEG, whose headers leave it false.
    public var hasICCProfile: Bool
    /// The CICP colour description, when the file has one.
    public var cicp: CICP?

    /// Declared pixel count.
    public var pixelCount: Int { width * height }

    /// A header of pixels that come from elsewhere than a file (a rendered frame, say), described
    /// as the file they could be stored in.
    public init(
        format: ImageFormat, width: Int, height: Int, channels: Int, bitDepth: Int = 8, isInterlaced: Bool = false,
        colorSpace: ColorSpace, hasAlpha: Bool, orientation: Int? = nil, frameCount: Int = 1,
        hasICCProfile: Bool = false, cicp: CICP? = nil
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
        self.frameCount = frameCount
        self.hasICCProfile = hasICCProfile
        self.cicp = cicp
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
        self.frameCount = max(1, Int(header.frames))
        self.hasICCProfile = header.has_icc != 0
        let cicp = (Int(header.color_primaries), Int(header.transfer_characteristics), Int(header.matrix_coefficients))
        self.cicp = cicp == (0, 0, 0) ? nil : CICP(colorPrimaries: cicp.0, transferCharacteristics: cicp.1, matrixCoefficients: cicp.2)
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
