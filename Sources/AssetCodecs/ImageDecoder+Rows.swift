#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageDecoder {
    /// Starts decoding the data a band of rows at a time (see ``ImageRowReader``); the reader
    /// keeps `data` until it is released.
    ///
    /// The header is read and checked against the configuration first. A JPEG (at full size, or
    /// when a DCT scale lands exactly on the `maxDimension` target) and a non-interlaced PNG are
    /// then decoded row by row as the reader is read; an interlaced PNG, an image that must be
    /// resized and the other formats (whose libraries decode a whole image) are decoded whole here,
    /// and the reader hands out rows of that bitmap.
    /// - Throws: `CodecError`.
    public func rowReader(
        for data: some ContiguousBytes & Sendable, layout: ImageRowReader.Layout = .rgba8
    ) throws -> ImageRowReader {
        try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            let plan = DecodePlan(header: header, maxDimension: configuration.maxDimension)
            var log = WarningLog()
            let source: ImageRowReader.Source
            if plan.needsResize || !Self.streamsRows(header) {
                let bytesPerRow = plan.width * 4
                var warnings: [String] = []
                let pixels = try [UInt8](unsafeUninitializedCapacity: bytesPerRow * plan.height) { buffer, count in
                    let destination = UnsafeMutableRawBufferPointer(buffer)
                    warnings = try decode(bytes, header: header, plan: plan, into: destination, bytesPerRow: bytesPerRow)
                    count = bytesPerRow * plan.height
                }
                log.add(warnings)
                source = .whole(pixels)
            } else {
                source = .streamed(try RowDecoderHandle.start(
                    format: header.format, bytes: bytes, scaleDenominator: plan.scaleDenominator, limits: limits,
                    width: plan.width, height: plan.height, channels: layout.bytesPerPixel, log: &log))
            }
            return ImageRowReader(
                input: data, header: header, width: plan.width, height: plan.height, layout: layout,
                source: source, log: log)
        }
    }

    /// Starts decoding the data a band of rows at a time at the scale 1/`scaleDenominator` (JPEG:
    /// DCT scaling by 1, 2, 4 or 8; WebP and SVG: the size ``scaledSize(of:denominator:)`` gives;
    /// the others: full size): the shrink-on-load step of a streamed resize.
    /// `configuration.maxDimension` is not applied. An interlaced PNG and the formats that do not
    /// stream rows are decoded whole first, as ``rowReader(for:layout:)`` does.
    /// - Throws: `CodecError`.
    public func rowReader(
        for data: some ContiguousBytes & Sendable, scaleDenominator: Int, layout: ImageRowReader.Layout = .rgba8
    ) throws -> ImageRowReader {
        guard [1, 2, 4, 8].contains(scaleDenominator) else {
            throw CodecError.bufferTooSmall("the DCT scale must be 1/1, 1/2, 1/4 or 1/8")
        }
        return try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            let denominator = header.format.loadScaling == .none ? 1 : scaleDenominator
            let (width, height) = Self.scaledSize(of: header, denominator: denominator)
            var log = WarningLog()
            let source: ImageRowReader.Source
            if !Self.streamsRows(header) {
                source = .whole(try decodeWhole(bytes, header: header, denominator: denominator, width: width, height: height, log: &log))
            } else {
                source = .streamed(try RowDecoderHandle.start(
                    format: header.format, bytes: bytes, scaleDenominator: denominator, limits: limits,
                    width: width, height: height, channels: layout.bytesPerPixel, log: &log))
            }
            return ImageRowReader(
                input: data, header: header, width: width, height: height, layout: layout, source: source, log: log)
        }
    }

    /// Starts decoding a format that decodes at any size (``LoadScaling/anySize``: WebP through
    /// libwebp's scaled decode, SVG redrawn) at exactly `width` x `height`, a band of rows at a
    /// time: the shrink-on-load step of a transform, whose resize then has nothing left to do.
    /// - Throws: `CodecError` (`.unsupported` for a format that decodes at its own size only).
    public func rowReader(
        for data: some ContiguousBytes & Sendable, width: Int, height: Int, layout: ImageRowReader.Layout = .rgba8
    ) throws -> ImageRowReader {
        try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            guard header.format.loadScaling == .anySize else {
                throw CodecError.unsupported("\(header.format) images decode at their own size only")
            }
            guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= configuration.pixelBudget else {
                throw CodecError.tooLarge("a \(width)x\(height) decode passes the budget of \(configuration.pixelBudget) pixels")
            }
            var log = WarningLog()
            let pixels = try decodeWhole(bytes, header: header, denominator: 1, width: width, height: height, log: &log)
            return ImageRowReader(
                input: data, header: header, width: width, height: height, layout: layout, source: .whole(pixels), log: log)
        }
    }

    /// Whether the image's decoder hands out rows as it goes (a JPEG, a non-interlaced PNG); the
    /// others decode whole before the first row.
    public static func decodesInBands(_ header: ImageHeader) -> Bool { streamsRows(header) }

    /// Whether the format's decoder hands out rows as it goes (a JPEG, a non-interlaced PNG).
    static func streamsRows(_ header: ImageHeader) -> Bool {
        (FormatCodec.table[header.format]?.streamsRows ?? false) && !(header.format == .png && header.isInterlaced)
    }

    /// Decodes the image whole at `width` x `height` into new RGBA rows.
    func decodeWhole(
        _ bytes: UnsafeRawBufferPointer, header: ImageHeader, denominator: Int, width: Int, height: Int, log: inout WarningLog
    ) throws -> [UInt8] {
        var warnings: [String] = []
        let pixels = try [UInt8](unsafeUninitializedCapacity: width * 4 * height) { buffer, count in
            warnings = try CodecBridge.decode(
                format: header.format, bytes: bytes, scaleDenominator: denominator, limits: limits, page: configuration.page,
                width: width, height: height, into: UnsafeMutableRawBufferPointer(buffer), bytesPerRow: width * 4)
            count = width * 4 * height
        }
        log.add(warnings)
        return pixels
    }
}
