import AssetCodecs
import CAssetImaging

/// Calls into CAssetImaging and turns its statuses into ``ImagingError``s. Bitmaps are RGBA8
/// without row padding.
enum ImagingBridge {
    /// The report's message.
    static func message(of report: api_report) -> String {
        withUnsafeBytes(of: report.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func check(_ status: Int32, _ report: api_report, format: OutputFormat? = nil) throws {
        let message = message(of: report)
        let subject = format.map { "\($0): " } ?? ""
        switch UInt32(bitPattern: status) {
        case API_OK.rawValue: return
        case API_ERR_TOO_LARGE.rawValue: throw ImagingError.outputTooLarge(subject + message)
        case API_ERR_UNSUPPORTED.rawValue: throw ImagingError.unsupportedFormat(subject + message)
        case API_ERR_INVALID_ARGUMENT.rawValue: throw ImagingError.invalidTransform(subject + message)
        default: throw ImagingError.encodeFailed(subject + message)
        }
    }

    /// A new bitmap of `width` x `height` whose pixels `fill` writes.
    static func make(width: Int, height: Int, _ fill: (UnsafeMutablePointer<UInt8>, Int) throws -> Void) rethrows -> Bitmap {
        let rowBytes = width * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            try fill(buffer.baseAddress!, rowBytes)
            count = rowBytes * height
        }
        return Bitmap(width: width, height: height, bytesPerRow: rowBytes, pixels: pixels)
    }

    /// A new `width` x `height` bitmap that `call` fills from `bitmap` through the C layer (the
    /// source's pixels, the destination, its row bytes, the report), its status checked.
    static func produce(
        from bitmap: Bitmap, width: Int, height: Int,
        _ call: (UnsafePointer<UInt8>?, UnsafeMutablePointer<UInt8>, Int, inout api_report) -> Int32
    ) throws -> Bitmap {
        var report = api_report()
        var status: Int32 = 0
        let result = make(width: width, height: height) { out, rowBytes in
            status = bitmap.pixels.withUnsafeBufferPointer { source in call(source.baseAddress, out, rowBytes, &report) }
        }
        try check(status, report)
        return result
    }

    static func resize(
        _ bitmap: Bitmap, width: Int, height: Int, kernel: ResampleKernel, opaque: Bool, maxWorkBytes: Int
    ) throws -> Bitmap {
        if width == bitmap.width, height == bitmap.height { return bitmap }
        return try produce(from: bitmap, width: width, height: height) { source, out, rowBytes, report in
            api_resize_rgba(
                source, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                out, UInt32(width), UInt32(height), rowBytes, kernel.cValue, opaque ? 1 : 0,
                UInt64(max(0, maxWorkBytes)), &report)
        }
    }

    /// Resizes the rows `reader` decodes, a band at a time, without the source whole in memory;
    /// `overlapped` decodes on a second thread meanwhile (``BandPipeline``).
    static func resize(
        _ reader: ImageRowReader, width: Int, height: Int, kernel: ResampleKernel, opaque: Bool, maxWorkBytes: Int,
        overlapped: Bool
    ) throws -> Bitmap {
        var report = api_report()
        var resizer: OpaquePointer? = nil
        try check(api_resizer_create(
            UInt32(reader.width), UInt32(reader.height), UInt32(width), UInt32(height), kernel.cValue, opaque ? 1 : 0,
            UInt64(max(0, maxWorkBytes)), &resizer, &report), report)
        defer { api_resizer_destroy(resizer) }
        let bandRows = reader.bandRows(forBytes: 1 << 17)
        return try make(width: width, height: height) { out, rowBytes in
            func push(_ band: UnsafeMutableRawBufferPointer, _ rows: Int) throws {
                try check(api_resizer_push(
                    resizer, band.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(rows), reader.bytesPerRow,
                    out, rowBytes, &report), report)
            }
            if overlapped {
                try BandPipeline(reader: reader, bandRows: bandRows).run(push)
            } else {
                let band = UnsafeMutableRawBufferPointer.allocate(byteCount: bandRows * reader.bytesPerRow, alignment: 64)
                defer { band.deallocate() }
                while case let rows = try reader.readRows(into: band), rows > 0 { try push(band, rows) }
            }
            guard api_resizer_rows_written(resizer) == UInt32(height) else {
                throw ImagingError.encodeFailed("the resampler did not receive every row")
            }
        }
    }

    /// Every row of `reader` as a bitmap (no resize needed).
    static func readWhole(_ reader: ImageRowReader) throws -> Bitmap {
        try make(width: reader.width, height: reader.height) { out, rowBytes in
            var row = 0
            while row < reader.height {
                let destination = UnsafeMutableRawBufferPointer(start: out + row * rowBytes, count: (reader.height - row) * rowBytes)
                let read = try reader.readRows(into: destination)
                guard read > 0 else { throw ImagingError.encodeFailed("the decoder stopped before the last row") }
                row += read
            }
        }
    }

    /// Whether every pixel of a packed RGBA bitmap is opaque.
    static func isOpaque(_ bitmap: Bitmap) -> Bool {
        bitmap.pixels.withUnsafeBufferPointer {
            api_is_opaque($0.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow) != 0
        }
    }

    static func orient(_ bitmap: Bitmap, orientation: Int) throws -> Bitmap {
        guard (2...8).contains(orientation) else { return bitmap }
        let transposed = orientation >= 5
        let (width, height) = transposed ? (bitmap.height, bitmap.width) : (bitmap.width, bitmap.height)
        return try produce(from: bitmap, width: width, height: height) { source, out, rowBytes, report in
            api_orient_rgba(
                source, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow, UInt32(orientation),
                out, rowBytes, &report)
        }
    }

    /// The `width` x `height` window of `bitmap` at (`x`, `y`).
    static func crop(_ bitmap: Bitmap, x: Int, y: Int, width: Int, height: Int) -> Bitmap {
        if x == 0, y == 0, width == bitmap.width, height == bitmap.height { return bitmap }
        return make(width: width, height: height) { out, rowBytes in
            bitmap.pixels.withUnsafeBufferPointer { source in
                for row in 0..<height {
                    (out + row * rowBytes).update(from: source.baseAddress! + (y + row) * bitmap.bytesPerRow + x * 4, count: rowBytes)
                }
            }
        }
    }

    /// `bitmap` laid on a `width` x `height` canvas of `fill` (RGBA) at (`x`, `y`).
    static func pad(_ bitmap: Bitmap, width: Int, height: Int, x: Int, y: Int, fill: SIMD4<UInt8>) -> Bitmap {
        make(width: width, height: height) { out, rowBytes in
            for index in 0..<(width * height) {
                out[index * 4] = fill.x
                out[index * 4 + 1] = fill.y
                out[index * 4 + 2] = fill.z
                out[index * 4 + 3] = fill.w
            }
            bitmap.pixels.withUnsafeBufferPointer { source in
                for row in 0..<bitmap.height {
                    (out + (y + row) * rowBytes + x * 4).update(
                        from: source.baseAddress! + row * bitmap.bytesPerRow, count: bitmap.width * 4)
                }
            }
        }
    }

    /// Converts RGBA pixels from `profile` (RGB or gray) to sRGB.
    static func convertToSRGB(_ bitmap: Bitmap, profile: [UInt8]) throws -> Bitmap {
        var pixels = bitmap.pixels
        var report = api_report()
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            profile.withUnsafeBufferPointer { icc in
                api_icc_rgba_to_srgb(
                    buffer.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                    icc.baseAddress, icc.count, &report)
            }
        }
        try checkColor(status, report)
        return Bitmap(width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow, pixels: pixels)
    }

    /// Converts CMYK pixels (as ``ImageDecoder/decodeCMYK(_:scaleDenominator:)`` gives them) to
    /// sRGB RGBA through the CMYK `profile`.
    static func convertCMYKToSRGB(_ bitmap: Bitmap, inverted: Bool, profile: [UInt8]) throws -> Bitmap {
        var pixels = bitmap.pixels
        var report = api_report()
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            profile.withUnsafeBufferPointer { icc in
                api_icc_cmyk_to_srgb(
                    buffer.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                    inverted ? 1 : 0, icc.baseAddress, icc.count, &report)
            }
        }
        try checkColor(status, report)
        return Bitmap(width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow, pixels: pixels)
    }

    /// The colour space signature of an ICC profile (`RGB `, `CMYK`, `GRAY`), or nil.
    static func colorSpace(of profile: [UInt8]) -> String? {
        let signature = profile.withUnsafeBufferPointer { api_icc_color_space($0.baseAddress, $0.count) }
        guard signature != 0 else { return nil }
        let bytes = [UInt8(signature >> 24), UInt8((signature >> 16) & 0xff), UInt8((signature >> 8) & 0xff), UInt8(signature & 0xff)]
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func checkColor(_ status: Int32, _ report: api_report) throws {
        guard status != Int32(API_OK.rawValue) else { return }
        throw ImagingError.colorConversionFailed(message(of: report))
    }
}
