import CAssetCodecs

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an animated image is: its canvas, frames, how often it plays and whether it has alpha.
public struct AnimationInfo: Sendable, Hashable {
    /// The source's format (`.gif` or `.webp`).
    public var format: ImageFormat
    /// The canvas every frame is composited onto (a GIF's logical screen as libvips sizes it).
    public var width: Int
    /// The canvas height.
    public var height: Int
    /// Frames in file order.
    public var frameCount: Int
    /// How many times the animation plays: 0 forever, 1 once. A GIF's loop extension counts the
    /// repeats after the first play (`n` plays `n + 1` times, as browsers play it); a GIF without
    /// one plays once. A WebP's `ANIM` loop count is the number of plays.
    public var plays: Int
    /// Whether some frame shows a transparent pixel (a GIF: some frame has a transparent index).
    public var hasAlpha: Bool

    /// Creates the facts of an animation.
    public init(format: ImageFormat, width: Int, height: Int, frameCount: Int, plays: Int, hasAlpha: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.plays = plays
        self.hasAlpha = hasAlpha
    }
}

/// One frame of an animation, composited onto the canvas as a browser shows it.
public struct AnimationFrame: Sendable {
    /// The frame's index, from 0.
    public var index: Int
    /// The canvas after the frame was drawn: straight-alpha RGBA8, `width` x `height` of the info.
    public var bitmap: Bitmap
    /// How long it is shown, in milliseconds: a GIF's hundredths of a second times 10 as written (a
    /// 0 stays 0; players show such frames for about 100 ms), 100 for a GIF frame without a graphic
    /// control extension (libvips' default); a WebP's ANMF duration.
    public var duration: Int
    /// What the decoder had to say about damaged data, drawn as far as it went.
    public var warnings: [String]
}

/// Reads an animated GIF (giflib, composited as libvips 8.18 composites it) or animated WebP
/// (libwebpdemux's WebPAnimDecoder) frame by frame: one canvas at a time, whatever the length.
///
/// Limits are checked when it opens, before any canvas is allocated: the canvas against the pixel
/// budget, the frame count against `maxFrames`, and the canvas times the frames against
/// `maxTotalPixels` (a 1x1 GIF of 100,000 frames and a 65535x65535 screen are refused there).
/// Not `Sendable`: one reader belongs to one task. Use it off the cooperative pool.
///
/// ```swift
/// let reader = try AnimationReader(data, maxFrames: 1000)
/// while let frame = try reader.next() { print(frame.index, frame.duration) }
/// ```
public final class AnimationReader {
    /// The limits an animation is opened with.
    public struct Limits: Sendable, Hashable {
        /// The largest canvas, in pixels. Default: 100 megapixels.
        public var maxCanvasPixels: Int
        /// The most frames. Default: 10,000.
        public var maxFrames: Int
        /// The most pixels of all frames together (canvas times frames). Default: 2 gigapixels.
        public var maxTotalPixels: Int

        /// Creates limits; every parameter defaults to the value documented on its property.
        public init(maxCanvasPixels: Int = 100_000_000, maxFrames: Int = 10_000, maxTotalPixels: Int = 2_000_000_000) {
            self.maxCanvasPixels = maxCanvasPixels
            self.maxFrames = maxFrames
            self.maxTotalPixels = maxTotalPixels
        }
    }

    private enum Handle {
        case gif(OpaquePointer)
        case webp(OpaquePointer)
    }

    /// The canvas, frame count, plays and alpha.
    public let info: AnimationInfo
    private var handle: Handle?
    private var given = 0

    /// Whether `data` is an animation this reader takes: a GIF or WebP of more than one frame.
    public static func isAnimation(_ header: ImageHeader) -> Bool {
        (header.format == .gif || header.format == .webp) && header.frameCount > 1
    }

    /// Opens an animated GIF or WebP (the handle keeps its own copy of the bytes).
    /// - Throws: `CodecError`: `.unsupported` for another format or a still WebP, `.tooLarge` for
    ///   a limit, `.corrupt` or `.truncated` for a first frame that does not read.
    public init(_ data: some ContiguousBytes, limits: Limits = Limits()) throws {
        let budget = UInt64(max(0, limits.maxCanvasPixels))
        var cLimits = apc_limits(
            max_width: UInt32(clamping: budget), max_height: UInt32(clamping: budget), max_pixels: budget,
            max_chunk_bytes: 8_000_000, max_library_memory: 0)
        let maxFrames = UInt32(clamping: max(1, limits.maxFrames))
        var cInfo = apc_animation_info()
        var report = apc_report()
        let (format, handle): (ImageFormat, Handle) = try data.withUnsafeBytes { bytes in
            guard let format = ImageFormat(sniffing: bytes), format == .gif || format == .webp else {
                throw CodecError.unsupported("only GIF and WebP animations are read frame by frame")
            }
            let base = try CodecBridge.base(of: bytes)
            if format == .gif {
                var pointer: OpaquePointer?
                let status = apc_gif_animation_open(base, bytes.count, &cLimits, maxFrames, &pointer, &cInfo, &report)
                try CodecBridge.check(status, report)
                return (format, .gif(pointer!))
            }
            var pointer: OpaquePointer?
            let status = apc_webp_animation_open(base, bytes.count, &cLimits, maxFrames, &pointer, &cInfo, &report)
            if status == Int32(APC_ERR_INVALID_ARGUMENT.rawValue) {
                throw CodecError.unsupported(CodecBridge.string(report.message))
            }
            try CodecBridge.check(status, report)
            return (format, .webp(pointer!))
        }
        self.handle = handle
        info = AnimationInfo(
            format: format, width: Int(cInfo.width), height: Int(cInfo.height), frameCount: Int(cInfo.frames),
            plays: Int(cInfo.plays), hasAlpha: cInfo.has_alpha != 0)
        let total = info.width.multipliedReportingOverflow(by: info.height).partialValue
            .multipliedReportingOverflow(by: info.frameCount)
        guard !total.overflow, total.partialValue <= limits.maxTotalPixels else {
            close()
            throw CodecError.tooLarge(
                "the animation has \(info.frameCount) frames of \(info.width)x\(info.height), more than \(limits.maxTotalPixels) pixels in all")
        }
    }

    deinit { close() }

    private func close() {
        switch handle {
        case .gif(let pointer): apc_gif_animation_close(pointer)
        case .webp(let pointer): apc_webp_animation_close(pointer)
        case nil: break
        }
        handle = nil
    }

    /// Every frame's duration in milliseconds, as ``next()`` gives them, read from the file's
    /// records alone (no frame is decoded; the frames still to come are not disturbed).
    public func durations() -> [Int] {
        guard let handle, info.frameCount > 0 else { return [] }
        var values = [UInt32](repeating: 0, count: info.frameCount)
        let count = values.withUnsafeMutableBufferPointer { buffer -> UInt32 in
            switch handle {
            case .gif(let pointer): apc_gif_animation_durations(pointer, buffer.baseAddress, UInt32(buffer.count))
            case .webp(let pointer): apc_webp_animation_durations(pointer, buffer.baseAddress, UInt32(buffer.count))
            }
        }
        return values.prefix(Int(count)).map { Int($0) }
    }

    /// The next frame composited onto the canvas, or nil after the last.
    /// - Throws: `CodecError` for a frame that does not decode (the reader is then closed).
    public func next() throws -> AnimationFrame? {
        guard let handle, given < info.frameCount else {
            close()
            return nil
        }
        let rowBytes = info.width * 4
        var duration: UInt32 = 0
        var report = apc_report()
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * info.height) { buffer, count in
            switch handle {
            case .gif(let pointer):
                status = apc_gif_animation_next(pointer, buffer.baseAddress, rowBytes, buffer.count, &duration, &report)
            case .webp(let pointer):
                status = apc_webp_animation_next(pointer, buffer.baseAddress, rowBytes, buffer.count, &duration, &report)
            }
            count = status == 0 ? buffer.count : 0
        }
        if status == Int32(APC_ERR_NO_SUCH_PAGE.rawValue) {
            close()
            return nil
        }
        do {
            try CodecBridge.check(status, report)
        } catch {
            close()
            throw error
        }
        defer { given += 1 }
        return AnimationFrame(
            index: given, bitmap: Bitmap(width: info.width, height: info.height, bytesPerRow: rowBytes, pixels: pixels),
            duration: Int(duration), warnings: CodecBridge.warnings(of: report))
    }
}
