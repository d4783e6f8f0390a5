import AssetCodecs
import CAssetImaging

/// Resizes the frames of an animation, all of one size, with one resampler: its weights (a sine and
/// a division per tap for Lanczos) are made once for the sequence instead of once a frame, and
/// its rows are allocated once. The same pixels as ``ImagingBridge/resize(_:width:height:kernel:opaque:maxWorkBytes:)``.
/// Used by one thread at a time.
final class FrameResizer {
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    private let resizer: OpaquePointer?

    /// - Throws: ``ImagingError`` when the resampler's working memory is over `maxWorkBytes`.
    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, kernel: ResampleKernel, opaque: Bool, maxWorkBytes: Int) throws {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        if sourceWidth == width, sourceHeight == height {
            resizer = nil
            return
        }
        var report = api_report()
        var made: OpaquePointer? = nil
        try ImagingBridge.check(api_resizer_create(
            UInt32(sourceWidth), UInt32(sourceHeight), UInt32(width), UInt32(height), kernel.cValue, opaque ? 1 : 0,
            UInt64(max(0, maxWorkBytes)), &made, &report), report)
        resizer = made
    }

    deinit { api_resizer_destroy(resizer) }

    /// The frame at the output size (the frame itself when the sizes are equal).
    /// - Throws: ``ImagingError`` for a frame of another size than the sequence's.
    func resize(_ frame: Bitmap) throws -> Bitmap {
        guard frame.width == sourceWidth, frame.height == sourceHeight else {
            throw ImagingError.invalidTransform("a frame of \(frame.width)x\(frame.height) in a sequence of \(sourceWidth)x\(sourceHeight)")
        }
        guard let resizer else { return frame }
        api_resizer_rewind(resizer)
        var report = api_report()
        var status: Int32 = 0
        let output = ImagingBridge.make(width: width, height: height) { out, rowBytes in
            status = frame.pixels.withUnsafeBufferPointer { source in
                api_resizer_push(resizer, source.baseAddress, UInt32(frame.height), frame.bytesPerRow, out, rowBytes, &report)
            }
        }
        try ImagingBridge.check(status, report)
        guard api_resizer_rows_written(resizer) == UInt32(height) else {
            throw ImagingError.encodeFailed("the resampler did not write every row")
        }
        return output
    }
}
