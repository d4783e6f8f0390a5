/// What to make of an image: its size and crop, orientation, colour handling, output format and
/// encoder settings. One value that Swift code, a CLI flag set and a URL query all build, with a
/// canonical text form (``canonicalText``) fit for a cache key.
///
/// - Sizes are in CSS pixels times ``devicePixelRatio``; with no size the image keeps its own.
/// - The EXIF orientation is applied and the tag dropped; the embedded ICC profile is converted
///   to sRGB; EXIF, XMP and comments are stripped. ``keepMetadata`` and ``keepICCProfile`` turn
///   the last two off.
/// - ``format`` `.auto` picks from what the caller accepts (see ``FormatChoice``).
/// - ``frame`` asks for a still frame of a moving source (a Lottie animation) instead of an image;
///   the frame is then sized, cropped and encoded as an image would be.
/// - ``animate`` asks for the moving source itself as an animation (WebP, GIF or MP4): a Lottie
///   animation's frames or a video's preview, from ``from`` to ``to`` at ``framesPerSecond``, each
///   sized, cropped and padded as an image would be.
///
/// ```swift
/// var transform = ImageTransform(width: 512, format: .webp)
/// transform.quality = 80
/// let same = try ImageTransform(parsing: "w=512,format=webp,q=80")   // == transform
/// ```
public struct ImageTransform: Sendable, Hashable {
    /// The still frame of a moving source to make the image of (`frame=30`, `frame=50%`,
    /// `frame=1.5s`), or nil for a source that is an image. Default: nil.
    public var frame: FrameSpec?
    /// Make the moving source (a Lottie animation, a video) into an animation (`animate=1`): WebP,
    /// GIF or MP4, `format=auto` giving WebP to a client that takes it, else GIF. An animated GIF
    /// or WebP stays animated without it. Default: false.
    public var animate: Bool
    /// Frames a second of ``animate``'s output (`fps=15`), above 0 and at most 100; nil for the
    /// source's own rate (a video's preview: 10). Default: nil.
    public var framesPerSecond: Double?
    /// Where ``animate``'s output starts (`from=2s`, `from=10%`, a Lottie frame number `from=30`);
    /// nil for the start. Default: nil.
    public var from: FrameSpec?
    /// Where ``animate``'s output ends, included for a Lottie frame (`to=5s`, `to=60%`); nil for
    /// the end (a video's preview: 3 seconds after ``from``). Default: nil.
    public var to: FrameSpec?
    /// The image of a multi-image source (`page=1`): a TIFF's directory or a HEIF's top-level
    /// image, from 0; nil for the first directory or the primary image. Default: nil.
    public var page: Int?
    /// Target width in CSS pixels (times ``devicePixelRatio``), or nil. Default: nil.
    public var width: Int?
    /// Target height in CSS pixels (times ``devicePixelRatio``), or nil. Default: nil.
    public var height: Int?
    /// How the image fills a box of both sides. Default: `.inside`.
    public var fit: Fit
    /// Whether an image smaller than the target is scaled up. Default: false (it keeps its size;
    /// `contain` still pads to the box).
    public var enlarge: Bool
    /// Where a crop keeps the image, or where a padded image sits. Default: `.center`.
    public var gravity: Gravity
    /// The device pixel ratio the sizes are multiplied by, 0 < dpr <= 5. Default: 1.
    public var devicePixelRatio: Double
    /// The colour alpha is flattened onto for JPEG, and padding's colour. Default: nil (white for
    /// flattening; transparent padding for formats with alpha).
    public var background: RGBColor?
    /// The output format. Default: `.auto`.
    public var format: FormatChoice
    /// Encoder quality 1...100, or nil for the format's default (JPEG 80, WebP 80, AVIF 60).
    public var quality: Int?
    /// Lossless WebP or AVIF. Default: false.
    public var lossless: Bool
    /// Progressive JPEG (interlaced PNG). Default: false.
    public var progressive: Bool
    /// The resize filter. Default: `.lanczos3`.
    public var kernel: ResampleKernel
    /// Keep the EXIF block (with its orientation set to 1, as the pixels are upright). Default: false.
    public var keepMetadata: Bool
    /// Keep the embedded ICC profile and the pixels as they are, instead of converting to sRGB.
    /// Default: false.
    public var keepICCProfile: Bool

    /// Creates a transform; every parameter defaults to the value documented on its property.
    public init(
        frame: FrameSpec? = nil, width: Int? = nil, height: Int? = nil, fit: Fit = .inside, enlarge: Bool = false, gravity: Gravity = .center,
        devicePixelRatio: Double = 1, background: RGBColor? = nil, format: FormatChoice = .auto, quality: Int? = nil,
        lossless: Bool = false, progressive: Bool = false, kernel: ResampleKernel = .lanczos3,
        keepMetadata: Bool = false, keepICCProfile: Bool = false, page: Int? = nil, animate: Bool = false,
        framesPerSecond: Double? = nil, from: FrameSpec? = nil, to: FrameSpec? = nil
    ) {
        self.frame = frame
        self.animate = animate
        self.framesPerSecond = framesPerSecond
        self.from = from
        self.to = to
        self.page = page
        self.width = width
        self.height = height
        self.fit = fit
        self.enlarge = enlarge
        self.gravity = gravity
        self.devicePixelRatio = devicePixelRatio
        self.background = background
        self.format = format
        self.quality = quality
        self.lossless = lossless
        self.progressive = progressive
        self.kernel = kernel
        self.keepMetadata = keepMetadata
        self.keepICCProfile = keepICCProfile
    }

    /// The output format asked for.
    public enum FormatChoice: Sendable, Hashable {
        /// Chosen per request: from the formats the caller accepts, AVIF first, then WebP, then JPEG
        /// (PNG when the image has alpha); with no list, the source's own format where it is one we
        /// write (JPEG, PNG, WebP, AVIF), else PNG with alpha and JPEG without.
        case auto
        /// This format.
        case format(OutputFormat)

        /// The format this choice gives whatever the image is: the format asked for, or for `auto`
        /// with a list, AVIF or WebP when the caller accepts one; nil when the image decides (JPEG
        /// or PNG by alpha, or the source's format when there is no list).
        public func formatIndependentOfImage(accepted: [OutputFormat]?) -> OutputFormat? {
            if case .format(let format) = self { return format }
            guard let accepted else { return nil }
            if accepted.contains(.avif) { return .avif }
            if accepted.contains(.webp) { return .webp }
            return nil
        }

        /// `auto`, or the format's name.
        public var name: String {
            switch self {
            case .auto: "auto"
            case .format(let format): format.rawValue
            }
        }
    }

    /// Checks the values against `limits`: sizes 1...`maxOutputDimension`, dpr in (0, 5],
    /// quality in 1...100.
    /// - Throws: `ImagingError.invalidTransform`.
    public func validate(maxOutputDimension: Int = ImageProcessor.Configuration().maxOutputDimension) throws {
        for (name, value) in [("w", width), ("h", height)] {
            if let value, value < 1 || value > maxOutputDimension {
                throw ImagingError.invalidTransform("\(name) must be 1 to \(maxOutputDimension) (got \(value))")
            }
        }
        guard devicePixelRatio > 0, devicePixelRatio <= 5, devicePixelRatio.isFinite else {
            throw ImagingError.invalidTransform("dpr must be above 0 and at most 5 (got \(devicePixelRatio))")
        }
        if let quality, !(1...100).contains(quality) {
            throw ImagingError.invalidTransform("q must be 1 to 100 (got \(quality))")
        }
        if !animate, framesPerSecond != nil || from != nil || to != nil {
            throw ImagingError.invalidTransform("fps, from and to go with animate=1")
        }
        if animate, frame != nil { throw ImagingError.invalidTransform("animate=1 makes every frame; frame takes one") }
        if let fps = framesPerSecond, !(fps > 0 && fps <= 100) {
            throw ImagingError.invalidTransform("fps must be above 0 and at most 100 (got \(fps))")
        }
        if animate, case .format(let format) = format, !format.supportsAnimation {
            throw ImagingError.invalidTransform("animate=1 writes WebP, GIF or MP4, not \(format)")
        }
        for (name, value) in [("w", width), ("h", height)] {
            if let value, Double(value) * devicePixelRatio > Double(maxOutputDimension) {
                throw ImagingError.invalidTransform(
                    "\(name) times dpr is \(Int(Double(value) * devicePixelRatio)), above the limit of \(maxOutputDimension)")
            }
        }
    }
}
