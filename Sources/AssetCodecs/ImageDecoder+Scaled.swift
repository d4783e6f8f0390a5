import CAssetCodecs

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageDecoder {
    /// The size libjpeg-turbo gives a JPEG decoded at a DCT scale of 1/`denominator` (1, 2, 4
    /// or 8): each side rounded up; a WebP or SVG decoded at that scale has the same size. The
    /// other formats decode at full size whatever the denominator.
    public static func scaledSize(of header: ImageHeader, denominator: Int) -> (width: Int, height: Int) {
        guard header.format.loadScaling != .none, denominator > 1 else { return (header.width, header.height) }
        return (DecodePlan.scaled(header.width, denominator), DecodePlan.scaled(header.height, denominator))
    }

    /// Decodes a CMYK or YCCK JPEG at the DCT scale 1/`scaleDenominator` into a bitmap whose four
    /// bytes per pixel are C, M, Y, K as libjpeg gives them (YCCK turned into CMYK), for a colour
    /// conversion through the image's ICC profile. `inverted` is true for Adobe's inverted CMYK.
    /// A CMYK TIFF gives its samples at full size (0 = no ink; never inverted).
    /// - Throws: `CodecError` (`.unsupported` for an image that is not CMYK or YCCK).
    public func decodeCMYK(_ data: some ContiguousBytes, scaleDenominator: Int) throws -> (bitmap: Bitmap, inverted: Bool, warnings: [String]) {
        guard [1, 2, 4, 8].contains(scaleDenominator) else {
            throw CodecError.bufferTooSmall("the DCT scale must be 1/1, 1/2, 1/4 or 1/8")
        }
        return try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            guard header.format == .jpeg || header.format == .tiff else {
                throw CodecError.unsupported("only JPEG and TIFF images are decoded as CMYK")
            }
            let (width, height) = Self.scaledSize(of: header, denominator: scaleDenominator)
            let bytesPerRow = width * 4
            var inverted: Int32 = 0
            var report = apc_report()
            var limits = self.limits
            let base = try CodecBridge.base(of: bytes)
            let pixels = try [UInt8](unsafeUninitializedCapacity: bytesPerRow * height) { buffer, count in
                let status = header.format == .tiff
                    ? apc_tiff_decode_cmyk(
                        base, bytes.count, &limits, try CodecBridge.checkedPage(configuration.page, codec: .of(.tiff), format: .tiff),
                        UInt32(width), UInt32(height), buffer.baseAddress, bytesPerRow, buffer.count, &report)
                    : apc_jpeg_decode_cmyk(
                        base, bytes.count, UInt32(scaleDenominator), &limits, UInt32(width), UInt32(height),
                        buffer.baseAddress, bytesPerRow, buffer.count, &inverted, &report)
                try CodecBridge.check(status, report)
                count = bytesPerRow * height
            }
            let bitmap = Bitmap(width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels)
            return (bitmap, inverted != 0, CodecBridge.warnings(of: report))
        }
    }

    /// Reads the ICC profile and the EXIF block of the data (the chunks, markers or boxes around
    /// the image data); absent blocks are nil.
    /// - Throws: `CodecError`.
    public func metadata(of data: some ContiguousBytes) throws -> ImageMetadata {
        try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            return try CodecBridge.metadata(format: header.format, bytes: bytes, limits: limits, page: configuration.page)
        }
    }
}
