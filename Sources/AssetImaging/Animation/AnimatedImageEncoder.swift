import AssetCodecs
import CAssetImaging

/// Writes an animation frame by frame: animated WebP through libwebpmux's WebPAnimEncoder (lossy or
/// lossless, the settings libvips gives an animation), GIF through cgif with our quantizer (at
/// most 255 colours, Floyd-Steinberg dithered, a palette kept across frames while it fits, each
/// frame written as the window that changed), or an H.264 MP4 through FFmpeg's libavcodec and
/// libx264 (`MP4Writer`: alpha flattened onto ``ImageEncoder/Options/background``, even sides). Frames are not kept: memory is a few canvases and the
/// output, bounded by ``ImageEncoder/Options/maxOutputBytes``.
///
/// WebPAnimEncoder merges a frame identical to the one before into it (one frame of both
/// durations), as in libvips's and gif2webp's output: what plays is the same, the count can be less.
///
/// Not `Sendable`: one encoder belongs to one task. Synchronous CPU work.
///
/// ```swift
/// let encoder = try AnimatedImageEncoder(format: .webp, width: 240, height: 135, plays: 0, hasAlpha: false)
/// for frame in frames { try encoder.add(frame.bitmap, duration: frame.duration) }
/// let bytes = try encoder.finish()
/// ```
public final class AnimatedImageEncoder {
    private enum Handle {
        case webp(OpaquePointer)
        case gif(OpaquePointer)
        case mp4(MP4Writer)
    }

    /// The output format: `.webp` or `.gif`.
    public let format: OutputFormat
    /// The canvas width every frame has.
    public let width: Int
    /// The canvas height every frame has.
    public let height: Int
    /// The written width: the canvas's, less an odd column for MP4.
    public var outputWidth: Int { format == .mp4 ? width & ~1 : width }
    /// The written height: the canvas's, less an odd row for MP4.
    public var outputHeight: Int { format == .mp4 ? height & ~1 : height }
    /// Frames added so far.
    public private(set) var frameCount = 0
    private var handle: Handle?
    private let maxOutputBytes: Int

    /// Starts an animation of `width` x `height` that plays `plays` times (0: forever).
    /// `hasAlpha`: some frame has transparent pixels (else none is written).
    /// - Throws: ``ImagingError`` (`.unsupportedFormat` for a format that holds no animation,
    ///   `.invalidTransform` for a size the format cannot hold).
    public init(
        format: OutputFormat, width: Int, height: Int, plays: Int, hasAlpha: Bool, options: ImageEncoder.Options = ImageEncoder.Options()
    ) throws {
        guard format.supportsAnimation else {
            throw ImagingError.unsupportedFormat("\(format) holds no animation (WebP, GIF and MP4 do)")
        }
        guard width > 0, height > 0, width <= 65_535, height <= 65_535 else {
            throw ImagingError.invalidTransform("an animation of \(width)x\(height) cannot be written")
        }
        self.format = format
        self.width = width
        self.height = height
        maxOutputBytes = max(1, options.maxOutputBytes)
        var report = api_report()
        var pointer: OpaquePointer?
        let plays = UInt32(clamping: max(0, plays))
        let status: Int32
        switch format {
        case .webp:
            let quality = Int32(options.quality ?? ImageEncoder.Options.defaultQuality(for: .webp))
            var webp = api_webp_options(
                quality: Float(options.lossless ? 75 : quality), lossless: options.lossless ? 1 : 0,
                method: Int32(options.webpMethod), alpha_quality: 100, exact: 0, icc: nil, icc_length: 0)
            status = api_webp_animation_new(UInt32(width), UInt32(height), plays, hasAlpha ? 0 : 1, &webp, &pointer, &report)
            if status == 0, let pointer { handle = .webp(pointer) }
        case .mp4:
            handle = .mp4(try MP4Writer(width: width, height: height, options: options))
            status = 0
        default:
            status = api_gif_animation_new(
                UInt32(width), UInt32(height), 1, plays, hasAlpha ? 1 : 0, 1, maxOutputBytes, &pointer, &report)
            if status == 0, let pointer { handle = .gif(pointer) }
        }
        try ImagingBridge.check(status, report, format: format)
    }

    deinit { close() }

    private func close() {
        switch handle {
        case .webp(let pointer): api_webp_animation_free(pointer)
        case .gif(let pointer): api_gif_animation_free(pointer)
        case .mp4(let writer): writer.close()
        case nil: break
        }
        handle = nil
    }

    /// Adds a frame (straight-alpha RGBA8 of the canvas size) shown for `duration` milliseconds
    /// (GIF keeps hundredths of a second).
    /// - Throws: ``ImagingError``; the encoder is then done.
    public func add(_ bitmap: Bitmap, duration: Int) throws {
        guard let handle else { throw ImagingError.encodeFailed("\(format): the animation is finished or failed") }
        guard bitmap.width == width, bitmap.height == height, bitmap.bytesPerRow >= width * 4 else {
            throw ImagingError.invalidTransform("a frame of \(bitmap.width)x\(bitmap.height) in an animation of \(width)x\(height)")
        }
        var report = api_report()
        let milliseconds = UInt32(clamping: max(0, duration))
        do {
            let status = try bitmap.pixels.withUnsafeBufferPointer { pixels -> Int32 in
                switch handle {
                case .webp(let pointer):
                    return api_webp_animation_add(pointer, pixels.baseAddress, bitmap.bytesPerRow, milliseconds, &report)
                case .gif(let pointer):
                    return api_gif_animation_add(pointer, pixels.baseAddress, bitmap.bytesPerRow, milliseconds, &report)
                case .mp4(let writer):
                    try writer.add(bitmap, duration: duration)
                    return 0
                }
            }
            try ImagingBridge.check(status, report, format: format)
        } catch {
            close()
            throw error
        }
        frameCount += 1
    }

    /// Ends the animation and gives the file.
    /// - Throws: ``ImagingError`` (`.outputTooLarge` past the output limit).
    public func finish() throws -> [UInt8] {
        guard let handle, frameCount > 0 else {
            throw ImagingError.encodeFailed("\(format): an animation needs at least one frame")
        }
        defer { close() }
        if case .mp4(let writer) = handle { return try writer.finish() }
        var buffer = api_buffer()
        buffer.limit = maxOutputBytes
        defer { api_buffer_free(&buffer) }
        var report = api_report()
        let status = switch handle {
        case .webp(let pointer): api_webp_animation_finish(pointer, &buffer, &report)
        case .gif(let pointer): api_gif_animation_finish(pointer, &buffer, &report)
        case .mp4: Int32(API_ERR_INVALID_ARGUMENT.rawValue)  // written above
        }
        try ImagingBridge.check(status, report, format: format)
        return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.length))
    }
}
