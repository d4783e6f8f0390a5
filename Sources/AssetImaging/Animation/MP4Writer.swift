import AssetCodecs
import CAssetVideoFrame

/// The MP4 half of ``AnimatedImageEncoder``: H.264 through FFmpeg's libavcodec and libx264
/// (`yuv420p`, BT.709, `+faststart`, written in memory; CAssetVideoFrame's avf_mp4_write.c), the
/// libraries the video frame decoder opens on first use. H.264 holds neither alpha nor odd sides:
/// alpha is flattened onto the background, and an odd side loses its last row or column.
///
/// Quality maps to x264's constant rate factor: `crf = round((100 - q) * 0.51)`, so the default 55
/// is x264's own CRF 23 and 100 is lossless.
final class MP4Writer {
    private var writer: OpaquePointer?
    /// The size written (even sides).
    let width: Int
    let height: Int

    /// x264's preset: `medium`, its own and ffmpeg's default.
    static let preset = "medium"

    init(width: Int, height: Int, options: ImageEncoder.Options) throws {
        let quality = min(100, max(1, options.quality ?? ImageEncoder.Options.defaultQuality(for: .mp4)))
        let background = options.background
        var settings = avf_mp4_options()
        settings.width = Int32(clamping: width)
        settings.height = Int32(clamping: height)
        settings.crf = Int32((Double(100 - quality) * 0.51).rounded())
        settings.threads = Int32(clamping: max(0, options.videoThreads))
        settings.background = (background.red, background.green, background.blue)
        settings.max_bytes = Int64(max(1, options.maxOutputBytes))
        self.width = width & ~1
        self.height = height & ~1
        var message = Self.emptyMessage()
        var pointer: OpaquePointer?
        let status = Self.preset.withCString { preset in
            settings.preset = preset
            return avf_mp4_new(&settings, &pointer, &message)
        }
        writer = pointer
        if status != AVF_OK.rawValue {
            close()
            throw Self.error(status, message)
        }
    }

    deinit { close() }

    func close() {
        if let writer { avf_mp4_free(writer) }
        writer = nil
    }

    /// Adds a frame of the size the writer was made with, shown for `duration` ms.
    func add(_ bitmap: Bitmap, duration: Int) throws {
        guard let writer else { throw ImagingError.encodeFailed("mp4: the video is finished or failed") }
        var message = Self.emptyMessage()
        let status = bitmap.pixels.withUnsafeBufferPointer { pixels in
            avf_mp4_add(writer, pixels.baseAddress, bitmap.bytesPerRow, Int32(clamping: max(1, duration)), &message)
        }
        if status != AVF_OK.rawValue { throw Self.error(status, message) }
    }

    /// Ends the video and gives the file.
    func finish() throws -> [UInt8] {
        guard let writer else { throw ImagingError.encodeFailed("mp4: the video is finished or failed") }
        var message = Self.emptyMessage()
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = avf_mp4_finish(writer, &bytes, &length, &message)
        defer { avf_mp4_bytes_free(bytes) }
        if status != AVF_OK.rawValue { throw Self.error(status, message) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    private static func emptyMessage() -> [CChar] { [CChar](repeating: 0, count: Int(AVF_MESSAGE_CAPACITY)) }

    private static func error(_ status: Int32, _ message: [CChar]) -> ImagingError {
        let text = "mp4: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return switch UInt32(bitPattern: status) {
        case AVF_ERR_TOO_LARGE.rawValue: ImagingError.outputTooLarge(text)
        case AVF_ERR_UNAVAILABLE.rawValue, AVF_ERR_CODEC.rawValue: ImagingError.unsupportedFormat(text)
        default: ImagingError.encodeFailed(text)
        }
    }
}
