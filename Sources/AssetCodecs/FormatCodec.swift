import CAssetCodecs

/// How a format's decoder shrinks on load: what ``ImageDecoder`` and the transforms can ask of it
/// instead of decoding at full size and resizing.
public enum LoadScaling: Sendable, Hashable {
    /// Full size only (PNG, GIF, TIFF, AVIF, HEIF, JPEG XL).
    case none
    /// libjpeg-turbo's DCT scaling by 1/2, 1/4 or 1/8, each side rounded up (JPEG).
    case dct
    /// Any size: libwebp's scaled decode (WebP), or the vector redrawn (SVG).
    case anySize
}

/// The C entry points of one format's decoder: a row of the one table that ``CodecBridge`` and
/// the row decoders read, so that a new format is a row here and a C file, not a new branch.
struct FormatCodec: Sendable {
    typealias Header = @Sendable (
        _ data: UnsafePointer<UInt8>, _ length: Int, _ limits: UnsafePointer<apc_limits>, _ page: Int32,
        _ header: UnsafeMutablePointer<apc_header>, _ report: UnsafeMutablePointer<apc_report>
    ) -> Int32
    typealias Decode = @Sendable (
        _ data: UnsafePointer<UInt8>, _ length: Int, _ limits: UnsafePointer<apc_limits>, _ page: Int32,
        _ scaleDenominator: UInt32, _ width: UInt32, _ height: UInt32, _ pixels: UnsafeMutablePointer<UInt8>,
        _ rowBytes: Int, _ capacity: Int, _ report: UnsafeMutablePointer<apc_report>
    ) -> Int32
    typealias Metadata = @Sendable (
        _ data: UnsafePointer<UInt8>, _ length: Int, _ limits: UnsafePointer<apc_limits>, _ page: Int32,
        _ metadata: UnsafeMutablePointer<apc_metadata>, _ report: UnsafeMutablePointer<apc_report>
    ) -> Int32

    /// A decoder of apc_formats.h: no DCT scale, the size asked for is the size decoded.
    typealias SizedDecode = @Sendable (
        _ data: UnsafePointer<UInt8>, _ length: Int, _ limits: UnsafePointer<apc_limits>, _ page: Int32,
        _ width: UInt32, _ height: UInt32, _ pixels: UnsafeMutablePointer<UInt8>, _ rowBytes: Int, _ capacity: Int,
        _ report: UnsafeMutablePointer<apc_report>
    ) -> Int32

    var header: Header
    var decode: Decode
    var metadata: Metadata
    /// How it shrinks on load.
    var scaling: LoadScaling
    /// Whether a file may hold several images that `page` selects (TIFF directories, HEIF images).
    var hasPages: Bool
    /// Whether it decodes a band of rows at a time (``RowDecoderHandle``); the others decode whole.
    var streamsRows: Bool
    /// The library's name for ``apc_library_version``, nil for those linked by name elsewhere.
    var library: String?

    init(
        header: @escaping Header, decode: @escaping Decode, metadata: @escaping Metadata, scaling: LoadScaling, hasPages: Bool,
        streamsRows: Bool, library: String?
    ) {
        (self.header, self.decode, self.metadata) = (header, decode, metadata)
        (self.scaling, self.hasPages, self.streamsRows, self.library) = (scaling, hasPages, streamsRows, library)
    }

    /// A row of the decoders of apc_formats.h: the three entry points, whole images only.
    init(
        _ library: String, header: @escaping Header, decode: @escaping SizedDecode, metadata: @escaping Metadata,
        scaling: LoadScaling = .none, hasPages: Bool = false
    ) {
        self.init(
            header: header, decode: { d, n, l, p, _, w, h, px, rb, c, r in decode(d, n, l, p, w, h, px, rb, c, r) },
            metadata: metadata, scaling: scaling, hasPages: hasPages, streamsRows: false, library: library)
    }

    /// The decoders, by format; BMP and ICO have none.
    static let table: [ImageFormat: FormatCodec] = [
        .png: FormatCodec(
            header: { d, n, l, _, h, r in apc_png_read_header(d, n, l, h, r) },
            decode: { d, n, l, _, _, w, h, p, rb, c, r in apc_png_decode_rgba(d, n, l, w, h, p, rb, c, r) },
            metadata: { d, n, l, _, m, r in apc_png_read_metadata(d, n, l, m, r) },
            scaling: .none, hasPages: false, streamsRows: true, library: nil),
        .jpeg: FormatCodec(
            header: { d, n, l, _, h, r in apc_jpeg_read_header(d, n, 1, l, h, r) },
            decode: { d, n, l, _, s, w, h, p, rb, c, r in apc_jpeg_decode_rgba(d, n, s, l, w, h, p, rb, c, r) },
            metadata: { d, n, l, _, m, r in apc_jpeg_read_metadata(d, n, l, m, r) },
            scaling: .dct, hasPages: false, streamsRows: true, library: nil),
        .webp: FormatCodec("webp", header: apc_webp_read_header, decode: apc_webp_decode_rgba, metadata: apc_webp_read_metadata, scaling: .anySize),
        .avif: FormatCodec("avif", header: apc_avif_read_header, decode: apc_avif_decode_rgba, metadata: apc_avif_read_metadata),
        .heif: FormatCodec("heif", header: apc_heif_read_header, decode: apc_heif_decode_rgba, metadata: apc_heif_read_metadata, hasPages: true),
        .gif: FormatCodec("gif", header: apc_gif_read_header, decode: apc_gif_decode_rgba, metadata: apc_gif_read_metadata),
        .tiff: FormatCodec("tiff", header: apc_tiff_read_header, decode: apc_tiff_decode_rgba, metadata: apc_tiff_read_metadata, hasPages: true),
        .svg: FormatCodec("svg", header: apc_svg_read_header, decode: apc_svg_decode_rgba, metadata: apc_svg_read_metadata, scaling: .anySize),
        .jpegXL: FormatCodec("jxl", header: apc_jxl_read_header, decode: apc_jxl_decode_rgba, metadata: apc_jxl_read_metadata),
    ]

    /// The decoder of `format`.
    /// - Throws: `CodecError.unsupported` for a format without one.
    static func of(_ format: ImageFormat) throws -> FormatCodec {
        guard let codec = table[format] else { throw CodecError.unsupported("\(format) images are not supported") }
        return codec
    }
}

extension ImageFormat {
    /// How this format's decoder shrinks on load (``LoadScaling/none`` for a format that does not
    /// decode).
    public var loadScaling: LoadScaling { FormatCodec.table[self]?.scaling ?? .none }

    /// The runtime version of the library that decodes this format ("libheif 1.15.1"), "" when it
    /// cannot be opened here; PNG and JPEG name libpng and libjpeg-turbo.
    public var decoderVersion: String {
        switch self {
        case .png: return "libpng " + String(cString: apc_png_library_version())
        case .jpeg: return "libjpeg-turbo " + String(cString: apc_jpeg_library_version())
        default:
            guard let name = FormatCodec.table[self]?.library else { return "" }
            return String(cString: apc_library_version(name))
        }
    }
}
