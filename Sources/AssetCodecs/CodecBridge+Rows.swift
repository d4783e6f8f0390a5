import CAssetCodecs

/// The row decoders of CAssetCodecs: one C decoder in progress, and the calls that step it.
///
/// Unchecked Sendable: the C decoder has no thread affinity, and its one owner (``ImageRowReader``)
/// calls it only under its lock.
struct RowDecoderHandle: @unchecked Sendable {
    private enum Kind {
        case png(OpaquePointer)
        case jpeg(OpaquePointer)
    }

    private let kind: Kind

    /// Starts a decode of `bytes` (whose header was read and checked) at `width` x `height`,
    /// adding the start's warnings to `log`.
    static func start(
        format: ImageFormat, bytes: UnsafeRawBufferPointer, scaleDenominator: Int, limits: apc_limits,
        width: Int, height: Int, channels: Int, log: inout WarningLog
    ) throws -> RowDecoderHandle {
        var limits = limits
        var report = apc_report()
        let base = try CodecBridge.base(of: bytes)
        var pointer: OpaquePointer?
        let status: Int32
        switch format {
        case .png:
            status = apc_png_rows_start(
                base, bytes.count, &limits, UInt32(width), UInt32(height), UInt32(channels), &pointer, &report)
        case .jpeg:
            status = apc_jpeg_rows_start(
                base, bytes.count, UInt32(scaleDenominator), &limits, UInt32(width), UInt32(height),
                UInt32(channels), &pointer, &report)
        default:
            throw CodecError.unsupported("\(format) images are not supported")
        }
        log.add(report)
        try CodecBridge.check(status, report)
        guard let pointer else { throw CodecError.corrupt("the row decoder did not start") }
        return RowDecoderHandle(kind: format == .png ? .png(pointer) : .jpeg(pointer))
    }

    /// Decodes up to `maxRows` next rows into `destination` (rows of `bytesPerRow`); returns how
    /// many were written, adding the call's warnings to `log`.
    func read(
        bytes: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int, maxRows: Int,
        log: inout WarningLog
    ) throws -> Int {
        var report = apc_report()
        let base = try CodecBridge.base(of: bytes)
        guard let pixels = destination.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw CodecError.bufferTooSmall("the destination buffer is empty")
        }
        var read: UInt32 = 0
        let count = UInt32(clamping: maxRows)
        let status: Int32
        switch kind {
        case .png(let decoder):
            status = apc_png_rows_read(decoder, base, bytes.count, pixels, bytesPerRow, destination.count, count, &read, &report)
        case .jpeg(let decoder):
            status = apc_jpeg_rows_read(decoder, base, bytes.count, pixels, bytesPerRow, destination.count, count, &read, &report)
        }
        log.add(report)
        try CodecBridge.check(status, report)
        return Int(read)
    }

    /// Reads on to the end of the image, adding the call's warnings to `log`.
    func finish(bytes: UnsafeRawBufferPointer, log: inout WarningLog) throws {
        var report = apc_report()
        let base = try CodecBridge.base(of: bytes)
        let status: Int32
        switch kind {
        case .png(let decoder): status = apc_png_rows_finish(decoder, base, bytes.count, &report)
        case .jpeg(let decoder): status = apc_jpeg_rows_finish(decoder, base, bytes.count, &report)
        }
        log.add(report)
        try CodecBridge.check(status, report)
    }

    /// Frees the C decoder; the handle must not be used afterwards.
    func destroy() {
        switch kind {
        case .png(let decoder): apc_png_rows_destroy(decoder)
        case .jpeg(let decoder): apc_jpeg_rows_destroy(decoder)
        }
    }
}
