import AssetCodecs
import CAssetImaging

/// Encodes RGBA8 bitmaps to JPEG (libjpeg-turbo), PNG (libpng), WebP (libwebp), AVIF (libavif
/// with libaom) and GIF (cgif, quantized by ours to 255 colours with dithering). Synchronous CPU work: call it off the cooperative pool.
///
/// - JPEG has no alpha: a bitmap with alpha is flattened onto ``Options/background``.
/// - PNG is written as the smallest exact colour type: palette (at most 256 colours, with
///   `tRNS`), gray, gray with alpha, RGB or RGBA.
/// - WebP and AVIF drop the alpha plane of an opaque bitmap.
/// - The output is bounded by ``Options/maxOutputBytes``; failures are ``ImagingError``s.
///
/// ```swift
/// let bytes = try ImageEncoder().encode(bitmap, as: .webp, options: .init(quality: 80))
/// ```
public struct ImageEncoder: Sendable {
    /// Encoder settings; those a format does not use are ignored.
    public struct Options: Sendable, Hashable {
        /// Quality 1...100, or nil for the format's default (JPEG 80, WebP 80, AVIF 60). Default: nil.
        public var quality: Int?
        /// Progressive JPEG, or Adam7-interlaced PNG. Default: false.
        public var progressive: Bool
        /// Lossless WebP or AVIF. Default: false.
        public var lossless: Bool
        /// Chroma subsampling of JPEG and AVIF: 4:2:0 when true (the default), else 4:4:4.
        public var chromaSubsampling: Bool
        /// Optimized Huffman tables for JPEG (smaller files, a little slower). Default: true.
        public var optimizeCoding: Bool
        /// zlib level of PNG, 0...9. Default: 6.
        public var compressionLevel: Int
        /// Write an indexed PNG when the bitmap has at most 256 colours. Default: true.
        public var palette: Bool
        /// libwebp's method 0 (fast) ... 6 (small). Default: 4, libwebp's own default.
        public var webpMethod: Int
        /// libavif's speed 0 (slow, small) ... 10 (fast). Default: 6.
        public var avifSpeed: Int
        /// Threads the AVIF encoder may use. Default: 1.
        public var avifThreads: Int
        /// Threads the MP4 (x264) encoder may use, 0 for x264's own choice (1.5 a core). Default: 1.
        public var videoThreads: Int = 1
        /// The colour alpha is flattened onto for JPEG. Default: white.
        public var background: RGBColor
        /// An ICC profile to embed, or nil. Default: nil.
        public var iccProfile: [UInt8]?
        /// An EXIF block (TIFF structure) to embed in JPEG, or nil. Default: nil.
        public var exif: [UInt8]?
        /// Largest encoded output accepted, in bytes. Default: 64 MiB.
        public var maxOutputBytes: Int

        /// Creates options; every parameter defaults to the value documented on its property.
        public init(
            quality: Int? = nil, progressive: Bool = false, lossless: Bool = false, chromaSubsampling: Bool = true,
            optimizeCoding: Bool = true, compressionLevel: Int = 6, palette: Bool = true, webpMethod: Int = 4,
            avifSpeed: Int = 6, avifThreads: Int = 1, background: RGBColor = .white, iccProfile: [UInt8]? = nil,
            exif: [UInt8]? = nil, maxOutputBytes: Int = 64 << 20
        ) {
            self.quality = quality
            self.progressive = progressive
            self.lossless = lossless
            self.chromaSubsampling = chromaSubsampling
            self.optimizeCoding = optimizeCoding
            self.compressionLevel = compressionLevel
            self.palette = palette
            self.webpMethod = webpMethod
            self.avifSpeed = avifSpeed
            self.avifThreads = avifThreads
            self.background = background
            self.iccProfile = iccProfile
            self.exif = exif
            self.maxOutputBytes = maxOutputBytes
        }

        /// The quality a format uses when none is given.
        public static func defaultQuality(for format: OutputFormat) -> Int {
            switch format {
            case .jpeg, .webp: 80
            case .avif: 60
            case .png, .gif: 100
            case .mp4: 55
            }
        }
    }

    /// Creates an encoder.
    public init() {}

    /// The AV1 encoder libavif uses for AVIF (`aom`), or nil when it has none.
    public static var avifEncoderName: String? {
        api_avif_encoder_name().map { String(cString: $0) }
    }

    /// Encodes `bitmap` (straight-alpha RGBA8) as `format`.
    /// - Throws: `ImagingError` (`.outputTooLarge`, `.encodeFailed`, `.unsupportedFormat`).
    public func encode(_ bitmap: Bitmap, as format: OutputFormat, options: Options = Options()) throws -> [UInt8] {
        guard bitmap.width > 0, bitmap.height > 0 else { throw ImagingError.encodeFailed("the image is empty") }
        guard !format.isMotionOnly else { throw Self.stillRefusal(format) }
        var buffer = api_buffer()
        buffer.limit = max(1, options.maxOutputBytes)
        defer { api_buffer_free(&buffer) }
        var report = api_report()
        let quality = Int32(options.quality ?? Options.defaultQuality(for: format))
        let (w, h) = (UInt32(bitmap.width), UInt32(bitmap.height))
        let status: Int32 = try withOptionalBytes(options.iccProfile) { icc, iccCount in
            try withOptionalBytes(options.exif) { exif, exifCount in
                bitmap.pixels.withUnsafeBufferPointer { pixels -> Int32 in
                    let rgba = pixels.baseAddress!
                    switch format {
                    case .jpeg:
                        var jpeg = api_jpeg_options(
                            quality: quality, progressive: options.progressive ? 1 : 0,
                            subsampling: Int32(options.chromaSubsampling ? API_SUBSAMPLING_420.rawValue : API_SUBSAMPLING_444.rawValue),
                            optimize_coding: options.optimizeCoding ? 1 : 0,
                            icc: icc, icc_length: iccCount, exif: exif, exif_length: exifCount)
                        let rowBytes = bitmap.width * 3
                        var rgb = [UInt8](repeating: 0, count: rowBytes * bitmap.height)
                        rgb.withUnsafeMutableBufferPointer { out in
                            if api_is_opaque(rgba, w, h, bitmap.bytesPerRow) != 0 {
                                api_rgba_to_rgb(rgba, w, h, bitmap.bytesPerRow, out.baseAddress, rowBytes)
                            } else {
                                let bg = options.background
                                api_flatten_rgba(rgba, w, h, bitmap.bytesPerRow, bg.red, bg.green, bg.blue, out.baseAddress, rowBytes)
                            }
                        }
                        return rgb.withUnsafeBufferPointer { api_jpeg_encode($0.baseAddress, w, h, rowBytes, &jpeg, &buffer, &report) }
                    case .png:
                        var png = api_png_options(
                            compression_level: Int32(min(9, max(0, options.compressionLevel))), filter: -1,
                            palette: options.palette ? 1 : 0, interlaced: options.progressive ? 1 : 0,
                            icc: icc, icc_length: iccCount)
                        return api_png_encode(rgba, w, h, bitmap.bytesPerRow, &png, &buffer, &report)
                    case .webp:
                        var webp = api_webp_options(
                            quality: Float(options.lossless ? 75 : quality), lossless: options.lossless ? 1 : 0,
                            method: Int32(options.webpMethod), alpha_quality: 100, exact: 0, icc: icc, icc_length: iccCount)
                        let opaque = api_is_opaque(rgba, w, h, bitmap.bytesPerRow)
                        return api_webp_encode(rgba, w, h, bitmap.bytesPerRow, opaque, &webp, &buffer, &report)
                    case .avif:
                        var avif = api_avif_options(
                            quality: quality, speed: Int32(options.avifSpeed), lossless: options.lossless ? 1 : 0,
                            subsampling: Int32(options.chromaSubsampling ? API_SUBSAMPLING_420.rawValue : API_SUBSAMPLING_444.rawValue),
                            threads: Int32(max(1, options.avifThreads)), icc: icc, icc_length: iccCount)
                        let opaque = api_is_opaque(rgba, w, h, bitmap.bytesPerRow)
                        return api_avif_encode(rgba, w, h, bitmap.bytesPerRow, opaque, &avif, &buffer, &report)
                    case .gif:
                        let opaque = api_is_opaque(rgba, w, h, bitmap.bytesPerRow)
                        var gif: OpaquePointer?
                        var status = api_gif_animation_new(
                            w, h, 0, 1, opaque == 0 ? 1 : 0, 1, buffer.limit, &gif, &report)
                        defer { api_gif_animation_free(gif) }
                        if status == 0 { status = api_gif_animation_add(gif, rgba, bitmap.bytesPerRow, 0, &report) }
                        if status == 0 { status = api_gif_animation_finish(gif, &buffer, &report) }
                        return status
                    case .mp4:
                        return Int32(API_ERR_UNSUPPORTED.rawValue)  // refused above
                    }
                }
            }
        }
        try ImagingBridge.check(status, report, format: format)
        return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.length))
    }

    /// The refusal of a still image in a format that holds only animations (MP4).
    public static func stillRefusal(_ format: OutputFormat) -> ImagingError {
        ImagingError.unsupportedFormat(
            "\(format) is made of an animation (an animated GIF or WebP, a Lottie animation or a video with animate=1), not of a still image")
    }

    private func withOptionalBytes<T>(
        _ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) throws -> T
    ) throws -> T {
        guard let bytes, !bytes.isEmpty else { return try body(nil, 0) }
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress, $0.count) }
    }
}
