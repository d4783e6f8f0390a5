import AssetCodecs

/// How one source is turned into one output: the DCT scale of the decode (shrink-on-load), the
/// size the decoded image is resized to before it is turned upright, the geometry after, and the
/// format. Made from the header alone, before any pixel memory is allocated.
public struct TransformPlan: Sendable, Hashable {
    /// The source's header.
    public var header: ImageHeader
    /// The EXIF orientation applied (1 when none).
    public var orientation: Int
    /// The shrink-on-load denominator (1, 2, 4, 8): libjpeg-turbo's DCT scale, libwebp's scaled
    /// decode; 1 for the formats that decode at their own size, and for SVG.
    public var scaleDenominator: Int
    /// The decoded width (stored orientation).
    public var decodedWidth: Int
    /// The decoded height (stored orientation).
    public var decodedHeight: Int
    /// The width the decoded image is resized to (stored orientation).
    public var resizeWidth: Int
    /// The height the decoded image is resized to (stored orientation).
    public var resizeHeight: Int
    /// The sizes after turning upright: resized, then cropped or padded to the output.
    public var geometry: TransformGeometry
    /// The output format.
    public var format: OutputFormat
    /// Whether the output is an animation: an animated GIF or WebP source (more than one frame, no
    /// `page` or `frame` asked for) made into a format that holds one (WebP, GIF). Such a plan is
    /// made by ``AnimationProcessor``; an animated source into JPEG, PNG or AVIF gives its first frame.
    public var isAnimated: Bool

    /// Plans `transform` for `header`, choosing `.auto` formats from `accepted` (nil: the caller
    /// did not say).
    /// - Throws: `ImagingError.outputTooLarge` when the output passes the configuration's limits.
    public init(
        header: ImageHeader, transform: ImageTransform, accepted: [OutputFormat]?, configuration: ImageProcessor.Configuration
    ) throws {
        self.header = header
        let orientation = (header.orientation ?? 1).clamped(1, 8)
        self.orientation = orientation
        let transposed = orientation >= 5
        let (uprightWidth, uprightHeight) = transposed ? (header.height, header.width) : (header.width, header.height)
        // A vector is drawn at the size asked for, larger than its own too: enlarging it costs
        // nothing in sharpness (libvips's thumbnail and imgproxy do the same for SVG).
        var sized = transform
        if header.format.isVector { sized.enlarge = true }
        let geometry = sized.geometry(sourceWidth: uprightWidth, sourceHeight: uprightHeight)
        self.geometry = geometry
        let outputPixels = geometry.outputWidth.multipliedReportingOverflow(by: geometry.outputHeight)
        let largestSide = max(geometry.outputWidth, geometry.outputHeight, geometry.resizedWidth, geometry.resizedHeight)
        guard !outputPixels.overflow, outputPixels.partialValue <= configuration.maxOutputPixels else {
            throw ImagingError.outputTooLarge(
                "the output would be \(geometry.outputWidth)x\(geometry.outputHeight) pixels, the limit is \(configuration.maxOutputPixels)")
        }
        guard largestSide <= configuration.maxOutputDimension else {
            throw ImagingError.outputTooLarge(
                "the output would be \(geometry.outputWidth)x\(geometry.outputHeight), the largest side allowed is \(configuration.maxOutputDimension)")
        }
        (resizeWidth, resizeHeight) = transposed
            ? (geometry.resizedHeight, geometry.resizedWidth) : (geometry.resizedWidth, geometry.resizedHeight)
        // Shrink-on-load: the largest DCT scale that leaves the kernel at least the margin's factor
        // (libvips: 2).
        // A JPEG's DCT scaling and WebP's scaled decode alike (libvips's shrink-on-load for both). An
        // SVG is drawn at the resized size itself: a vector redrawn, not a raster scaled.
        var denominator = 1
        if header.format.loadScaling != .none, !header.format.isVector {
            let shrink = min(Double(header.width) / Double(resizeWidth), Double(header.height) / Double(resizeHeight))
            let margin = max(1, configuration.shrinkOnLoadMargin)
            denominator = [8, 4, 2].first { shrink >= Double($0) * margin } ?? 1
        }
        scaleDenominator = denominator
        if header.format.isVector {
            (decodedWidth, decodedHeight) = (resizeWidth, resizeHeight)
        } else {
            (decodedWidth, decodedHeight) = ImageDecoder.scaledSize(of: header, denominator: denominator)
        }
        let animatedSource = AnimationReader.isAnimation(header) && transform.page == nil && transform.frame == nil
        if animatedSource, case .auto = transform.format {
            // What the client takes of the two that keep the animation: WebP, else GIF (which
            // every client takes); without a list, the source's own.
            if let accepted {
                format = accepted.contains(.webp) ? .webp : .gif
            } else {
                format = header.format == .webp ? .webp : .gif
            }
        } else {
            format = Self.format(for: transform.format, accepted: accepted, header: header)
        }
        isAnimated = animatedSource && format.supportsAnimation
    }

    /// The format `.auto` resolves to, or the one asked for. Without `accepted`, the source's own
    /// format where it is one of ours to write, else PNG for an image with alpha (GIF, SVG, ...)
    /// and JPEG for one without.
    static func format(for choice: ImageTransform.FormatChoice, accepted: [OutputFormat]?, header: ImageHeader) -> OutputFormat {
        if let format = choice.formatIndependentOfImage(accepted: accepted) { return format }
        guard let accepted else {
            switch header.format {
            case .png: return .png
            case .jpeg: return .jpeg
            case .webp: return .webp
            case .avif: return .avif
            default: return header.hasAlpha ? .png : .jpeg
            }
        }
        if header.hasAlpha, accepted.contains(.png) || !accepted.contains(.jpeg) { return .png }
        return .jpeg
    }

    /// Bytes the transform holds at its peak, estimated: the decoded rows (a band of 256 KiB when
    /// they stream into the resampler; the whole decoded image for CMYK JPEGs and interlaced PNGs),
    /// the resampler's ring of float rows, the resized, upright and output bitmaps, and as much again
    /// for the encoder's input and output.
    public var estimatedBytes: Int {
        let whole = header.colorSpace == .cmyk || header.colorSpace == .ycck || !ImageDecoder.decodesInBands(header)
        let decoded = whole ? decodedWidth * decodedHeight * 4 : max(256 << 10, decodedWidth * 4 * 16)
        let scale = Double(decodedHeight) / Double(max(1, resizeHeight))
        let ring = resizeWidth * 16 * (Int((6 * max(1, scale)).rounded(.up)) + 2)
        let resized = resizeWidth * resizeHeight * 4
        let output = geometry.outputWidth * geometry.outputHeight * 4
        if isAnimated {
            // A frame at a time: the file's copy is the caller's; the reader's canvas, the decoder's
            // own (WebPAnimDecoder keeps two, a GIF frame of disposal 3 one more) and the frame
            // given; the resized and output frames; the encoder's previous frame and candidates.
            let canvas = header.width * header.height * 4
            return 3 * canvas + ring + 2 * resized + 5 * output
        }
        return decoded + ring + 2 * resized + 2 * output
    }
}

extension Comparable {
    func clamped(_ low: Self, _ high: Self) -> Self { min(max(self, low), high) }
}
