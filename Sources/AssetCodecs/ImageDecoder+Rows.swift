#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageDecoder {
    /// Starts decoding PNG or JPEG data a band of rows at a time (see ``ImageRowReader``); the
    /// reader keeps `data` until it is released.
    ///
    /// The header is read and checked against the configuration first. A JPEG (at full size, or
    /// when a DCT scale lands exactly on the `maxDimension` target) and a non-interlaced PNG are
    /// then decoded row by row as the reader is read; an interlaced PNG and an image that must be
    /// resized are decoded whole here, and the reader hands out rows of that bitmap.
    /// - Throws: `CodecError`.
    public func rowReader(
        for data: some ContiguousBytes & Sendable, layout: ImageRowReader.Layout = .rgba8
    ) throws -> ImageRowReader {
        try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            let plan = DecodePlan(header: header, maxDimension: configuration.maxDimension)
            var log = WarningLog()
            let source: ImageRowReader.Source
            if plan.needsResize || (header.format == .png && header.isInterlaced) {
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

    /// Starts decoding PNG or JPEG data a band of rows at a time at the DCT scale
    /// 1/`scaleDenominator` (JPEG: 1, 2, 4 or 8; PNG: full size): the shrink-on-load step of a
    /// streamed resize. `configuration.maxDimension` is not applied. An interlaced PNG is decoded
    /// whole first, as ``rowReader(for:layout:)`` does.
    /// - Throws: `CodecError`.
    public func rowReader(
        for data: some ContiguousBytes & Sendable, scaleDenominator: Int, layout: ImageRowReader.Layout = .rgba8
    ) throws -> ImageRowReader {
        guard [1, 2, 4, 8].contains(scaleDenominator) else {
            throw CodecError.bufferTooSmall("the DCT scale must be 1/1, 1/2, 1/4 or 1/8")
        }
        return try data.withUnsafeBytes { bytes in
            let header = try checkedHeader(bytes)
            let denominator = header.format == .jpeg ? scaleDenominator : 1
            let (width, height) = Self.scaledSize(of: header, denominator: denominator)
            var log = WarningLog()
            let source: ImageRowReader.Source
            if header.format == .png && header.isInterlaced {
                let plan = DecodePlan(header: header, maxDimension: nil)
                let pixels = try [UInt8](unsafeUninitializedCapacity: width * 4 * height) { buffer, count in
                    let destination = UnsafeMutableRawBufferPointer(buffer)
                    log.add(try decode(bytes, header: header, plan: plan, into: destination, bytesPerRow: width * 4))
                    count = width * 4 * height
                }
                source = .whole(pixels)
            } else {
                source = .streamed(try RowDecoderHandle.start(
                    format: header.format, bytes: bytes, scaleDenominator: denominator, limits: limits,
                    width: width, height: height, channels: layout.bytesPerPixel, log: &log))
            }
            return ImageRowReader(
                input: data, header: header, width: width, height: height, layout: layout, source: source, log: log)
        }
    }
}
