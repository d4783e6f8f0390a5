import AssetCodecs
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes an ``ImageTransform`` of image bytes (every format `ImageDecoder` reads): decodes with
/// shrink-on-load (an SVG drawn at the size the output needs), converts the embedded ICC profile to
/// sRGB, resizes (Lanczos-3 by default, premultiplied alpha), turns the image upright, crops or
/// pads, and encodes. Synchronous CPU work: call it off the cooperative pool.
///
/// - **Limits first**: the header is read and the source's pixels, the output's pixels and sides
///   are checked against ``Configuration-swift.struct`` before any pixel memory is allocated.
/// - **Order**: a JPEG (DCT scaling) or WebP (libwebp's scaled decode) is decoded at the scale
///   that leaves at least a factor of two for the kernel (as libvips); an RGB or gray ICC profile
///   is applied after the resize (fewer pixels, as libvips's thumbnail), a CMYK one (CMYK and YCCK
///   JPEGs, CMYK TIFFs) before it.
/// - **Errors**: `CodecError` for a source that does not decode, ``ImagingError`` for a transform
///   that cannot be made (limits, encoders, colour).
///
/// ```swift
/// let processor = ImageProcessor()
/// let output = try processor.process(data, transform: ImageTransform(width: 512, format: .webp))
/// print(output.format, output.width, output.height, output.bytes.count)
/// ```
public struct ImageProcessor: Sendable {
    /// The limits and encoder speeds.
    public var configuration: Configuration

    /// Creates a processor with `configuration`'s limits.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Transforms running in this process now, for the choice to overlap decoding.
    static let running = Atomic<Int>(0)
    /// The cores this process may use.
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    var decoder: ImageDecoder { decoder(page: nil) }

    /// The decoder of a source's image `page` (nil: the first or primary one).
    func decoder(page: Int?) -> ImageDecoder {
        ImageDecoder(configuration: .init(pixelBudget: configuration.maxSourcePixels, maxInputBytes: configuration.maxInputBytes, page: page))
    }

    /// Plans `transform` for `data` from its header alone: what a caller reserves memory for.
    /// - Throws: `CodecError` for a header that does not read, ``ImagingError`` for limits.
    public func plan(for data: some ContiguousBytes & Sendable, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil) throws -> TransformPlan {
        try transform.validate(maxOutputDimension: configuration.maxOutputDimension)
        let header = try decoder(page: transform.page).header(of: data)
        return try TransformPlan(header: header, transform: transform, accepted: accepted, configuration: configuration)
    }

    /// Makes `transform` of `data`. `accepted` lists the formats the caller can take, for
    /// `format=auto` (nil: keep the source's format).
    /// - Throws: `CodecError` or ``ImagingError``.
    public func process(_ data: some ContiguousBytes & Sendable, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil) throws -> EncodedImage {
        let plan = try plan(for: data, transform: transform, accepting: accepted)
        return try process(data, plan: plan, transform: transform)
    }

    /// Makes `transform` of `data` along a plan made by ``plan(for:transform:accepting:)``.
    /// - Throws: `CodecError` or ``ImagingError``.
    public func process(_ data: some ContiguousBytes & Sendable, plan: TransformPlan, transform: ImageTransform) throws -> EncodedImage {
        if plan.isAnimated { return try AnimationProcessor(configuration: configuration).process(data, plan: plan, transform: transform) }
        Self.running.add(1, ordering: .relaxed)
        defer { Self.running.subtract(1, ordering: .relaxed) }
        let decoder = self.decoder(page: transform.page)
        let metadata = try decoder.metadata(of: data)
        var profile = metadata.iccProfile
        let profileSpace = profile.flatMap(ImagingBridge.colorSpace(of:))
        var bitmap: Bitmap
        var opaque: Bool
        if plan.header.colorSpace == .cmyk || plan.header.colorSpace == .ycck, let cmykProfile = profile, profileSpace == "CMYK" {
            let decoded = try decoder.decodeCMYK(data, scaleDenominator: plan.scaleDenominator)
            bitmap = try ImagingBridge.convertCMYKToSRGB(decoded.bitmap, inverted: decoded.inverted, profile: cmykProfile)
            profile = nil  // applied; the pixels are sRGB now
            opaque = true
            bitmap = try ImagingBridge.resize(
                bitmap, width: plan.resizeWidth, height: plan.resizeHeight, kernel: transform.kernel, opaque: opaque,
                maxWorkBytes: plan.estimatedBytes * 2)
        } else {
            if profileSpace == "CMYK" { profile = nil }  // a CMYK profile on a non-CMYK image: ignored
            // Decoded a band at a time straight into the resampler: the source is never whole in memory.
            let reader = plan.header.format.loadScaling == .anySize
                ? try decoder.rowReader(for: data, width: plan.decodedWidth, height: plan.decodedHeight)
                : try decoder.rowReader(for: data, scaleDenominator: plan.scaleDenominator)
            opaque = !plan.header.hasAlpha
            if reader.width == plan.resizeWidth, reader.height == plan.resizeHeight {
                bitmap = try ImagingBridge.readWhole(reader)
            } else {
                // A second thread pays where decoding is long (large sources) and a core is idle: not
                // when this process already runs a transform per core or more.
                let large = plan.decodedWidth * plan.decodedHeight >= 1 << 20
                let overlapped = switch configuration.overlapDecoding {
                case .off: false
                case .always: large
                case .whenCoresAreFree: large && Self.running.load(ordering: .relaxed) * 2 <= Self.cores
                }
                bitmap = try ImagingBridge.resize(
                    reader, width: plan.resizeWidth, height: plan.resizeHeight, kernel: transform.kernel, opaque: opaque,
                    maxWorkBytes: plan.estimatedBytes * 2, overlapped: overlapped)
            }
        }
        bitmap = try ImagingBridge.orient(bitmap, orientation: plan.orientation)
        bitmap = try crop(bitmap, plan: plan, transform: transform)
        if let source = profile, !transform.keepICCProfile, profileSpace == "RGB " || profileSpace == "GRAY" {
            bitmap = try ImagingBridge.convertToSRGB(bitmap, profile: source)
        }
        bitmap = pad(bitmap, plan: plan, transform: transform)
        var options = encoderOptions(transform)
        if transform.keepICCProfile, let profile { options.iccProfile = profile }
        if transform.keepMetadata, let exif = metadata.exif { options.exif = ExifOrientation.uprighted(exif) }
        let bytes = try ImageEncoder().encode(bitmap, as: plan.format, options: options)
        return EncodedImage(bytes: bytes, format: plan.format, width: bitmap.width, height: bitmap.height)
    }

    /// Makes `transform` of pixels already decoded or rendered (a still frame of an animation or a
    /// video): straight-alpha RGBA8 in sRGB, upright. `format=auto` without `accepted` gives PNG.
    /// - Throws: ``ImagingError`` (`outputTooLarge`, `invalidTransform`, encoder failures).
    public func process(bitmap: Bitmap, transform: ImageTransform, accepting accepted: [OutputFormat]? = nil) throws -> EncodedImage {
        try transform.validate(maxOutputDimension: configuration.maxOutputDimension)
        guard bitmap.width > 0, bitmap.height > 0, bitmap.bytesPerRow == bitmap.width * 4,
            bitmap.pixels.count == bitmap.bytesPerRow * bitmap.height
        else { throw ImagingError.invalidTransform("the bitmap is not \(bitmap.width)x\(bitmap.height) packed RGBA rows") }
        let header = ImageHeader(
            format: .png, width: bitmap.width, height: bitmap.height, channels: 4, colorSpace: .rgba, hasAlpha: true)
        let plan = try TransformPlan(header: header, transform: transform, accepted: accepted, configuration: configuration)
        Self.running.add(1, ordering: .relaxed)
        defer { Self.running.subtract(1, ordering: .relaxed) }
        var output = try ImagingBridge.resize(
            bitmap, width: plan.resizeWidth, height: plan.resizeHeight, kernel: transform.kernel, opaque: false,
            maxWorkBytes: plan.estimatedBytes * 2)
        output = try crop(output, plan: plan, transform: transform)
        output = pad(output, plan: plan, transform: transform)
        let bytes = try ImageEncoder().encode(output, as: plan.format, options: encoderOptions(transform))
        return EncodedImage(bytes: bytes, format: plan.format, width: output.width, height: output.height)
    }

    /// The encoder's options of `transform` under this processor's configuration.
    func encoderOptions(_ transform: ImageTransform) -> ImageEncoder.Options {
        ImageEncoder.Options(
            quality: transform.quality, progressive: transform.progressive, lossless: transform.lossless,
            webpMethod: configuration.webpMethod, avifSpeed: configuration.avifSpeed, avifThreads: configuration.avifThreads,
            background: transform.background ?? .white, maxOutputBytes: configuration.maxOutputBytes)
    }

    /// The crop of `fit=cover`: at the gravity's anchor, or the smart window.
    func crop(_ bitmap: Bitmap, plan: TransformPlan, transform: ImageTransform) throws -> Bitmap {
        var origin: (x: Int, y: Int)?
        return crop(bitmap, plan: plan, transform: transform, origin: &origin)
    }

    /// The crop of `fit=cover` at `origin`, which is found (the gravity's anchor, or the smart
    /// window) and kept there when nil: an animation's frames share the first one's window.
    func crop(_ bitmap: Bitmap, plan: TransformPlan, transform: ImageTransform, origin: inout (x: Int, y: Int)?) -> Bitmap {
        let (width, height) = (plan.geometry.outputWidth, plan.geometry.outputHeight)
        guard width < bitmap.width || height < bitmap.height else { return bitmap }
        let (cropWidth, cropHeight) = (min(width, bitmap.width), min(height, bitmap.height))
        if origin == nil {
            if let anchor = transform.gravity.anchor {
                origin = (Int((Double(bitmap.width - cropWidth) * anchor.x).rounded()),
                          Int((Double(bitmap.height - cropHeight) * anchor.y).rounded()))
            } else {
                origin = SmartCrop.origin(in: bitmap, width: cropWidth, height: cropHeight, strategy: transform.gravity)
            }
        }
        return ImagingBridge.crop(bitmap, x: origin!.x, y: origin!.y, width: cropWidth, height: cropHeight)
    }

    /// The padding of `fit=contain`: transparent for formats with alpha unless a background was
    /// given, else the background (white by default).
    func pad(_ bitmap: Bitmap, plan: TransformPlan, transform: ImageTransform) -> Bitmap {
        let (width, height) = (plan.geometry.outputWidth, plan.geometry.outputHeight)
        guard width > bitmap.width || height > bitmap.height else { return bitmap }
        let anchor = transform.gravity.anchor ?? (0.5, 0.5)
        let x = Int((Double(width - bitmap.width) * anchor.x).rounded())
        let y = Int((Double(height - bitmap.height) * anchor.y).rounded())
        let fill: SIMD4<UInt8>
        if let background = transform.background {
            fill = SIMD4(background.red, background.green, background.blue, 255)
        } else if plan.format.supportsAlpha {
            fill = SIMD4(0, 0, 0, 0)
        } else {
            fill = SIMD4(255, 255, 255, 255)
        }
        return ImagingBridge.pad(bitmap, width: width, height: height, x: x, y: y, fill: fill)
    }
}
