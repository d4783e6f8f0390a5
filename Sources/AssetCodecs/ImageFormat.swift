/// An image container format, recognised from the first bytes of the data (never from a name).
///
/// Every format but ``bmp`` and ``ico`` is decoded (``isDecodable``); those two are recognised so
/// that an error can name what the data is.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// PNG, recognised by `89 50 4E 47` (`\x89PNG`).
    case png
    /// JPEG, recognised by its SOI marker `FF D8`.
    case jpeg
    /// GIF: `GIF87a` or `GIF89a`.
    case gif
    /// WebP: `RIFF`, then `WEBP` at byte 8.
    case webp
    /// BMP: `BM`.
    case bmp
    /// TIFF, little-endian (`49 49 2A 00`) or big-endian (`4D 4D 00 2A`), and BigTIFF (`2B` for `2A`).
    case tiff
    /// AVIF: `ftypavif` or `ftypavis` at byte 4.
    case avif
    /// HEIF: `ftyp` at byte 4 with a brand that starts with `hei`, or `mif1`, `heix`, `hevc`.
    case heif
    /// JPEG XL, a bare codestream (`FF 0A`) or in its container (`00 00 00 0C 4A 58 4C 20`);
    /// raw value `jpeg-xl`.
    case jpegXL = "jpeg-xl"
    /// ICO (Windows icon): `00 00 01 00`.
    case ico
    /// SVG: XML text whose root element is `<svg` (after an optional byte-order mark, XML
    /// declaration, comments and DOCTYPE), or the same compressed with gzip (`.svgz`).
    case svg

    /// The bytes a sniff of a binary format needs at most.
    public static let sniffLength = 16
    /// The bytes an SVG's root element is looked for in (after the prolog), for callers that
    /// sniff a prefix of the data.
    public static let textSniffLength = 4096

    /// Recognises the format from the data's first bytes, or returns nil for unknown data.
    ///
    /// PNG is recognised by `\x89PNG` so that a damaged signature (for example one mangled by a
    /// text-mode transfer) reaches libpng and gets its precise error; JPEG by its SOI marker
    /// `FF D8` alone, as libjpeg does (damaged files often follow it with garbage, not a marker).
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(Self.sniffLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        let ascii = { (text: String) in Array(text.utf8) }
        if starts([0x89, 0x50, 0x4E, 0x47]) {
            self = .png
        } else if starts([0xFF, 0xD8]) {
            self = .jpeg
        } else if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) {
            self = .gif
        } else if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) {
            self = .webp
        } else if starts(ascii("BM")) {
            self = .bmp
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B])
        {
            self = .tiff
        } else if starts(ascii("ftypavif"), at: 4) || starts(ascii("ftypavis"), at: 4) {
            self = .avif
        } else if starts(ascii("ftyphei"), at: 4) || starts(ascii("ftypmif1"), at: 4)
            || starts(ascii("ftypheix"), at: 4) || starts(ascii("ftyphevc"), at: 4)
        {
            self = .heif
        } else if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            self = .jpegXL
        } else if starts([0x00, 0x00, 0x01, 0x00]) {
            self = .ico
        } else if SVGSniffer.isSVG(bytes.prefix(Self.textSniffLength)) {
            self = .svg
        } else {
            return nil
        }
    }

    /// Whether `ImageDecoder` can decode this format: every one but BMP and ICO.
    public var isDecodable: Bool {
        self != .bmp && self != .ico
    }

    /// Whether the format is drawn from vectors (SVG): decoded at the size the output needs,
    /// never scaled as a raster.
    public var isVector: Bool { self == .svg }

    /// The media type of the format (`image/png`, `image/svg+xml`, `image/jxl`, ...).
    public var mediaType: String {
        switch self {
        case .jpegXL: "image/jxl"
        case .svg: "image/svg+xml"
        case .ico: "image/vnd.microsoft.icon"
        default: "image/\(rawValue)"
        }
    }

    /// The raw value: `png`, `jpeg`, `jpeg-xl`, ...
    public var description: String { rawValue }
}
