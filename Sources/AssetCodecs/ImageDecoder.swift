#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CAssetCodecs

/// Decodes PNG, JPEG, WebP, AVIF, HEIC/HEIF, GIF, TIFF, SVG and JPEG XL data into 8-bit
/// straight-alpha RGBA bitmaps.
///
/// The format is sniffed from the bytes (never a name). The header is read first and checked
/// against the configured limits before any pixel memory is allocated; the C layer (one file per
/// library: libpng, libjpeg-turbo, libwebp, libavif, libheif, giflib, libtiff, librsvg, libjxl) then
/// decodes into memory Swift owns. libheif, libtiff, librsvg and libjxl are opened on their first
/// use, so a process that never meets those formats does not map them. Decoding is synchronous CPU
/// work: call it off the cooperative pool for large images.
///
/// Pixel contract. PNG: palette expanded, `tRNS` to alpha, 1/2/4-bit gray by bit replication,
/// 16-bit samples as `(v * 255 + 32767) / 65535`, gray to R=G=B, alpha 255 when absent, no gamma
/// or colour-profile correction, interlaced images whole. JPEG: libjpeg-turbo's default
/// decompression (the pixels `djpeg` writes), alpha 255, gray to R=G=B, CMYK and YCCK to RGB.
/// The other formats follow the same rules (deeper samples rounded as PNG's 16-bit ones) with the
/// pixels of each format's reference decoder: `dwebp`, `avifdec`, `heif-convert`, `rsvg-convert`,
/// `djxl`; a GIF is its first frame on the logical screen, an animated WebP its first frame on
/// the canvas. ``ImageHeader/orientation`` says what rotation the pixels still need.
///
/// Every failure is a ``CodecError``: `.tooLarge` for input or a declared size over the configured
/// limits, `.unsupported` for data of no decodable format (BMP, ICO, or a variant the libraries
/// refuse), `.truncated` and `.corrupt` for bad data, `.noSuchPage` for a page past the last,
/// `.bufferTooSmall` for a caller's buffer that cannot hold what it is asked to.
///
/// ```swift
/// let decoder = ImageDecoder(configuration: .init(maxDimension: 1024))
/// let decoded = try decoder.decode(data)   // data: Data or [UInt8]
/// print(decoded.bitmap.width, decoded.bitmap.height, decoded.warnings)
/// ```
public struct ImageDecoder: Sendable {
    /// The limits and output options of every decode this decoder does.
    public var configuration: Configuration

    /// Creates a decoder; the default configuration has the defaults of
    /// ``Configuration-swift.struct`` (100 megapixels, 256 MiB of input, full size).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Reads the header of the data without decoding its pixels.
    /// - Throws: `CodecError`.
    public func header(of data: some ContiguousBytes) throws -> ImageHeader {
        try data.withUnsafeBytes { bytes in try checkedHeader(bytes) }
    }

    /// The size a decode with this configuration produces for an image with `header`.
    public func outputSize(for header: ImageHeader) -> (width: Int, height: Int) {
        let plan = DecodePlan(header: header, maxDimension: configuration.maxDimension)
        return (plan.width, plan.height)
    }

    /// Decodes the data into a new bitmap.
    /// - Throws: `CodecError`.
    public func decode(_ data: some ContiguousBytes) throws -> DecodedImage {
        try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            let plan = DecodePlan(header: header, maxDimension: configuration.maxDimension)
            let bytesPerRow = plan.width * 4
            var warnings: [String] = []
            let pixels = try [UInt8](unsafeUninitializedCapacity: bytesPerRow * plan.height) { buffer, count in
                let destination = UnsafeMutableRawBufferPointer(buffer)
                HugePageAdvice.advise(destination)
                warnings = try decode(bytes, header: header, plan: plan, into: destination, bytesPerRow: bytesPerRow)
                count = bytesPerRow * plan.height
            }
            let bitmap = Bitmap(width: plan.width, height: plan.height, bytesPerRow: bytesPerRow, pixels: pixels)
            return DecodedImage(bitmap: bitmap, header: header, warnings: warnings)
        }
    }

    /// Decodes into memory the caller owns, for loops that decode many images: reusing one
    /// buffer saves mapping and page-faulting fresh memory for every large image.
    ///
    /// `destination` must hold `bytesPerRow * (height - 1) + width * 4` bytes for the size
    /// `outputSize(for:)` gives; `bytesPerRow` defaults to `width * 4`.
    /// - Throws: `CodecError` (`.bufferTooSmall` when the destination cannot hold the image).
    public func decode(
        _ data: some ContiguousBytes, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int? = nil
    ) throws -> DecodeSummary {
        try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            let plan = DecodePlan(header: header, maxDimension: configuration.maxDimension)
            let rowBytes = bytesPerRow ?? plan.width * 4
            let (rows, overflow) = rowBytes.multipliedReportingOverflow(by: plan.height - 1)
            let needed = overflow ? Int.max : rows.addingReportingOverflow(plan.width * 4).partialValue
            guard rowBytes >= plan.width * 4, needed >= rows, destination.count >= needed else {
                throw CodecError.bufferTooSmall(
                    "a \(plan.width)x\(plan.height) image with \(rowBytes) bytes per row does not fit \(destination.count) bytes")
            }
            let warnings = try decode(bytes, header: header, plan: plan, into: destination, bytesPerRow: rowBytes)
            return DecodeSummary(header: header, width: plan.width, height: plan.height, bytesPerRow: rowBytes, warnings: warnings)
        }
    }

    // MARK: - Internals

    var limits: apc_limits {
        let budget = UInt64(max(0, configuration.pixelBudget))
        let side = UInt32(clamping: budget)
        return apc_limits(
            max_width: side, max_height: side, max_pixels: budget,
            max_chunk_bytes: UInt64(max(1, configuration.maxChunkBytes)),
            // Room for a progressive JPEG's coefficients (up to 4 components x 2 bytes per pixel).
            max_library_memory: min(budget, 1 << 40) * 8 + (64 << 20))
    }

    func checkedHeader(_ bytes: UnsafeRawBufferPointer) throws -> ImageHeader {
        guard bytes.count <= configuration.maxInputBytes else {
            throw CodecError.tooLarge("the input has \(bytes.count) bytes, the limit is \(configuration.maxInputBytes)")
        }
        guard let format = ImageFormat(sniffing: bytes) else {
            throw CodecError.unsupported("not a recognised image format")
        }
        guard format.isDecodable else {
            throw CodecError.unsupported("\(format) images are not supported")
        }
        let header = try CodecBridge.header(format: format, bytes: bytes, limits: limits, page: configuration.page)
        guard header.width > 0, header.height > 0 else {
            throw CodecError.corrupt("the image declares an empty size")
        }
        guard header.width.multipliedReportingOverflow(by: header.height).partialValue <= configuration.pixelBudget else {
            throw CodecError.tooLarge(
                "the image declares \(header.width)x\(header.height) pixels, the budget is \(configuration.pixelBudget)")
        }
        return header
    }

    func decode(
        _ bytes: UnsafeRawBufferPointer, header: ImageHeader, plan: DecodePlan,
        into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int
    ) throws -> [String] {
        guard plan.needsResize else {
            return try CodecBridge.decode(
                format: header.format, bytes: bytes, scaleDenominator: plan.scaleDenominator, limits: limits,
                page: configuration.page, width: plan.width, height: plan.height, into: destination, bytesPerRow: bytesPerRow)
        }
        let decodedRow = plan.decodedWidth * 4
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: decodedRow * plan.decodedHeight, alignment: 16)
        defer { scratch.deallocate() }
        let warnings = try CodecBridge.decode(
            format: header.format, bytes: bytes, scaleDenominator: plan.scaleDenominator, limits: limits,
            page: configuration.page, width: plan.decodedWidth, height: plan.decodedHeight, into: scratch, bytesPerRow: decodedRow)
        AreaResampler.resize(
            source: UnsafeRawBufferPointer(scratch), width: plan.decodedWidth, height: plan.decodedHeight,
            bytesPerRow: decodedRow, into: destination, width: plan.width, height: plan.height, bytesPerRow: bytesPerRow)
        return warnings
    }
}
