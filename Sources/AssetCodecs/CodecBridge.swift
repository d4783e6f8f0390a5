import CAssetCodecs

/// Calls into CAssetCodecs and turns its status codes and reports into Swift values.
enum CodecBridge {
    static func header(
        format: ImageFormat, bytes: UnsafeRawBufferPointer, limits: apc_limits
    ) throws -> ImageHeader {
        var limits = limits
        var header = apc_header()
        var report = apc_report()
        let base = try base(of: bytes)
        let status: Int32
        switch format {
        case .png:
            status = apc_png_read_header(base, bytes.count, &limits, &header, &report)
        case .jpeg:
            status = apc_jpeg_read_header(base, bytes.count, 1, &limits, &header, &report)
        default:
            throw CodecError.unsupported("\(format) images are not supported")
        }
        try check(status, report)
        return ImageHeader(header, format: format)
    }

    /// Decodes into `destination` (rows of `bytesPerRow`); returns the warnings.
    static func decode(
        format: ImageFormat, bytes: UnsafeRawBufferPointer, scaleDenominator: Int, limits: apc_limits,
        width: Int, height: Int, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int
    ) throws -> [String] {
        var limits = limits
        var report = apc_report()
        let base = try base(of: bytes)
        guard let pixels = destination.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw CodecError.bufferTooSmall("the destination buffer is empty")
        }
        let status: Int32
        switch format {
        case .png:
            status = apc_png_decode_rgba(
                base, bytes.count, &limits, UInt32(width), UInt32(height),
                pixels, bytesPerRow, destination.count, &report)
        case .jpeg:
            status = apc_jpeg_decode_rgba(
                base, bytes.count, UInt32(scaleDenominator), &limits, UInt32(width), UInt32(height),
                pixels, bytesPerRow, destination.count, &report)
        default:
            throw CodecError.unsupported("\(format) images are not supported")
        }
        try check(status, report)
        return warnings(of: report)
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
