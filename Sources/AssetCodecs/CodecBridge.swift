import CAssetCodecs

/// Calls into CAssetCodecs through the format table (``FormatCodec``) and turns its status codes
/// and reports into Swift values.
enum CodecBridge {
    static func header(
        format: ImageFormat, bytes: UnsafeRawBufferPointer, limits: apc_limits, page: Int?
    ) throws -> ImageHeader {
        let codec = try FormatCodec.of(format)
        let page = try checkedPage(page, codec: codec, format: format)
        var limits = limits
        var header = apc_header()
        var report = apc_report()
        let base = try base(of: bytes)
        let status = codec.header(base, bytes.count, &limits, page, &header, &report)
        try check(status, report)
        return ImageHeader(header, format: format)
    }

    /// Decodes into `destination` (rows of `bytesPerRow`); returns the warnings.
    static func decode(
        format: ImageFormat, bytes: UnsafeRawBufferPointer, scaleDenominator: Int, limits: apc_limits, page: Int?,
        width: Int, height: Int, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int
    ) throws -> [String] {
        let codec = try FormatCodec.of(format)
        let page = try checkedPage(page, codec: codec, format: format)
        var limits = limits
        var report = apc_report()
        let base = try base(of: bytes)
        guard let pixels = destination.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw CodecError.bufferTooSmall("the destination buffer is empty")
        }
        let status = codec.decode(
            base, bytes.count, &limits, page, UInt32(scaleDenominator), UInt32(width), UInt32(height),
            pixels, bytesPerRow, destination.count, &report)
        try check(status, report)
        return warnings(of: report)
    }

    /// Reads the ICC profile and the EXIF block.
    static func metadata(
        format: ImageFormat, bytes: UnsafeRawBufferPointer, limits: apc_limits, page: Int?
    ) throws -> ImageMetadata {
        let codec = try FormatCodec.of(format)
        let page = try checkedPage(page, codec: codec, format: format)
        var limits = limits
        var report = apc_report()
        var blocks = apc_metadata()
        defer { apc_metadata_free(&blocks) }
        let base = try base(of: bytes)
        let status = codec.metadata(base, bytes.count, &limits, page, &blocks, &report)
        try check(status, report)
        func copy(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8]? {
            guard let pointer, count > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: pointer, count: count))
        }
        return ImageMetadata(iccProfile: copy(blocks.icc, blocks.icc_length), exif: copy(blocks.exif, blocks.exif_length))
    }

    /// The C page argument: -1 for the default image; an index only where the format has pages.
    static func checkedPage(_ page: Int?, codec: FormatCodec, format: ImageFormat) throws -> Int32 {
        guard let page else { return -1 }
        guard page >= 0, page <= Int(Int32.max) else { throw CodecError.noSuchPage("page \(page) is not an index") }
        guard codec.hasPages || page == 0 else {
            throw CodecError.noSuchPage("\(format) images have one page (page \(page) was asked for)")
        }
        return Int32(page)
    }

    static func base(of bytes: UnsafeRawBufferPointer) throws -> UnsafePointer<UInt8> {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw CodecError.truncated("the input is empty") }
        return base.assumingMemoryBound(to: UInt8.self)
    }

    static func check(_ status: Int32, _ report: apc_report) throws {
        let message = string(report.message)
        switch UInt32(bitPattern: status) {
        case APC_OK.rawValue: return
        case APC_ERR_TRUNCATED.rawValue: throw CodecError.truncated(message)
        case APC_ERR_UNSUPPORTED.rawValue: throw CodecError.unsupported(message)
        case APC_ERR_TOO_LARGE.rawValue: throw CodecError.tooLarge(message)
        case APC_ERR_INVALID_ARGUMENT.rawValue: throw CodecError.bufferTooSmall(message)
        case APC_ERR_NO_SUCH_PAGE.rawValue: throw CodecError.noSuchPage(message)
        default: throw CodecError.corrupt(message)
        }
    }

    static func warnings(of report: apc_report) -> [String] {
        var log = WarningLog()
        log.add(report)
        return log.messages
    }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
