import ArgumentParser
import AssetCodecs
import AssetImaging
import AssetLoading
import AssetLottie
import AssetLottieRender
import AssetPipeline
import AssetVideoFrames
import Foundation

/// `assetpipe convert SRC --output OUT`: resizes, crops, orients and encodes an image.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Resize, crop and encode an image (PNG, JPEG, WebP, AVIF, HEIC, GIF, TIFF, SVG, JPEG XL), or a frame of a video or a Lottie animation, to JPEG, PNG, WebP, AVIF or GIF; an animated GIF or WebP stays animated (in WebP, GIF or MP4).",
        discussion: """
            The output format is --format, else the output's extension (.jpg, .png, .webp, .avif, .gif, .mp4). \
            The source's format is sniffed from its bytes; an SVG is drawn at the size the output needs, \
            --page picks a TIFF's directory or a HEIF's image. An animated GIF or WebP stays animated \
            into WebP or GIF (every frame resized and cropped alike, durations and loop count kept; GIF \
            output is quantized to 255 colours with dithering) and gives its first frame into JPEG, PNG \
            or AVIF; --frame picks one frame of it (a number from 0, a position, a time). \
            --animate makes a Lottie animation into an animated WebP, GIF or MP4 (H.264): its frames from --from to \
            --to (default: all) at --fps (default: its own rate), --width wide, rendered with rlottie; of a video, \
            its animated preview from --from to --to (default: 3 s) at --fps (default: 10), read by range from a URL. \
            The EXIF orientation is applied, an embedded ICC profile is converted to sRGB, and metadata \
            is stripped, unless --keep-metadata or --keep-icc say otherwise. A URL loads through the cache \
            (--cache-dir) and the variant is kept there too, as ImageUtil.variant does. \
            --transform takes the canonical text form (w=512,h=512,fit=cover,format=webp,q=80); the \
            other flags override its values. The file appears only once complete. \
            --frame takes a still frame of a Lottie animation (JSON, .lottie or .tgs) instead: rendered \
            with rlottie at the animation's own size after our parser's checks, then transformed \
            (format auto gives PNG). Of a video (MP4, WebM, Matroska; a URL reads only the ranges the \
            index and the frame need, through the chunk store) --frame is a time (2.5s), a position \
            (50%) or 0 for the first frame; the frame is the one ffmpeg -ss gives.
            Exits 1 when the input cannot be read, decoded or encoded, 2 on bad usage (a bad transform).
            """)

    @Argument(help: "A file path, or an http, https or s3://bucket/key URL.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the encoded image to this file.", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Transform as text: w=512,h=256,fit=cover,format=webp,q=80.", valueName: "text"))
    var transform: String?

    @Option(help: ArgumentHelp("Target width (times --dpr).", valueName: "px"))
    var width: Int?

    @Option(help: ArgumentHelp("Target height (times --dpr).", valueName: "px"))
    var height: Int?

    @Option(help: ArgumentHelp("How a box of both sides is filled: cover, contain, fill, inside (default), outside.", valueName: "fit"))
    var fit: String?

    @Option(help: ArgumentHelp(
        "Where a crop keeps the image: center, north, south, east, west, northeast, northwest, southeast, southwest, entropy, attention.",
        valueName: "gravity"))
    var gravity: String?

    @Flag(help: "Scale images smaller than the target up.")
    var enlarge = false

    @Option(help: ArgumentHelp("Device pixel ratio the sizes are multiplied by (0 < dpr <= 5).", valueName: "ratio"))
    var dpr: Double?

    @Option(help: ArgumentHelp("Background for flattening alpha into JPEG and for padding (RRGGBB).", valueName: "hex"))
    var background: String?

    @Option(help: ArgumentHelp("jpeg, png, webp, avif, gif, mp4 (of an animation) or auto (the source's format).", valueName: "format"))
    var format: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Quality 1-100 (default: JPEG 80, WebP 80, AVIF 60).", valueName: "q"))
    var quality: Int?

    @Flag(help: "Lossless WebP or AVIF.")
    var lossless = false

    @Flag(help: "Progressive JPEG, interlaced PNG.")
    var progressive = false

    @Option(help: ArgumentHelp("Resize filter: lanczos3 (default), lanczos2, cubic, mitchell, linear, nearest.", valueName: "kernel"))
    var kernel: String?

    @Flag(name: .customLong("keep-metadata"), help: "Keep the EXIF block (its orientation set to 1).")
    var keepMetadata = false

    @Flag(name: .customLong("keep-icc"), help: "Keep the ICC profile and the pixels as they are (no conversion to sRGB).")
    var keepICC = false

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp(
        "Refuse sources that declare more pixels than this (default 100000000).", valueName: "n"))
    var maxPixels: Int = ImageUtil.Options.defaultPixelBudget

    @Option(help: ArgumentHelp(
        "A still frame of a Lottie animation (a frame number from the in point: 30, a position: 50%, a time: 1.5s), of a video (2.5s, 50%, 0 for the first frame) or of an animated GIF or WebP (a frame number from 0, 50%, 1.5s).",
        valueName: "frame"))
    var frame: String?

    @Flag(help: "Make an animated WebP, GIF or MP4 of a Lottie animation or a video's preview: its frames from --from to --to at --fps, sized by --width or --height (the transform's animate=1).")
    var animate = false

    @Option(help: ArgumentHelp("Frames a second of --animate, above 0 and at most 100 (default: the animation's own).", valueName: "n"))
    var fps: Double?

    @Option(help: ArgumentHelp("The first frame of --animate: a frame number (30), a position (10%) or a time (0.5s).", valueName: "frame"))
    var from: String?

    @Option(help: ArgumentHelp("The last frame of --animate, included (default: the animation's last).", valueName: "frame"))
    var to: String?

    @Option(help: ArgumentHelp(
        "The image of a multi-image source: a TIFF's directory or a HEIF's top-level image, from 0 (default: the first, or the primary).",
        valueName: "n"))
    var page: Int?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var derived: DerivedStoreOptions
    @OptionGroup var outputOptions: OutputOptions

    /// The transform the flags describe.
    func resolvedTransform() throws -> ImageTransform {
        var pairs: [(String, String)] = []
        if let transform {
            let base = try ImageTransform(parsing: transform)
            if base != ImageTransform() {
                pairs += base.canonicalText.split(separator: ",").map { item in
                    let parts = item.split(separator: "=", maxSplits: 1)
                    return (String(parts[0]), String(parts[1]))
                }
            }
        }
        func set(_ key: String, _ value: String?) {
            guard let value else { return }
            pairs.removeAll { $0.0 == key }
            pairs.append((key, value))
        }
        set("w", width.map(String.init))
        set("h", height.map(String.init))
        set("fit", fit)
        set("gravity", gravity)
        set("enlarge", enlarge ? "1" : nil)
        set("dpr", dpr.map { String($0) })
        set("bg", background)
        set("q", quality.map(String.init))
        set("lossless", lossless ? "1" : nil)
        set("progressive", progressive ? "1" : nil)
        set("kernel", kernel)
        set("metadata", keepMetadata ? "keep" : nil)
        set("icc", keepICC ? "keep" : nil)
        set("page", page.map(String.init))
        if animate {
            set("animate", "1")
            set("fps", fps.map { String($0) })
            set("from", from)
            set("to", to)
        }
        let named = OutputFormat(pathExtension: (output as NSString).pathExtension)
        if let format {
            set("format", format)
            if let named, let chosen = OutputFormat(rawValue: format.lowercased()), chosen != named {
                throw ValidationError("--format \(format) disagrees with the output's extension (.\(named.fileExtension))")
            }
        } else if !pairs.contains(where: { $0.0 == "format" }) {
            guard let named else {
                throw ValidationError(
                    "cannot tell the format from the output's name '\(output)': name it .jpg, .png, .webp, .avif, .gif or .mp4, or use --format")
            }
            set("format", named.rawValue)
        }
        return try ImageTransform(pairs: pairs)
    }

    func validate() throws {
        do {
            _ = try resolvedTransform()
        } catch let error as ImagingError {
            throw ValidationError(error.message)
        }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, FrameSpec(value) == nil {
                throw ValidationError("\(name) takes a frame number (30), a position (50%) or a time (1.5s), not \(value)")
            }
        }
        if animate, frame != nil { throw ValidationError("--animate makes every frame; --frame takes one") }
        if !animate, fps != nil || from != nil || to != nil { throw ValidationError("--fps, --from and --to go with --animate") }
        if let frame, FrameSpec(frame) == nil {
            throw ValidationError("--frame takes a frame number (30), a position (50%) or a time (1.5s), not \(frame)")
        }
    }

    func run() async throws {
        let transform = try resolvedTransform()
        let result: (format: OutputFormat, width: Int, height: Int, bytes: Int, origin: String?)
        do {
            result = try await convert(transform)
        } catch {
            let failure = Self.failure(error)
            if outputOptions.json { CLIOutput.printJSON(["error": failure.json]) }
            CLIOutput.error("\(input): \(failure.code): \(failure.message)")
            throw ExitCode.failure
        }
        if outputOptions.json {
            var object: [String: Any] = [
                "format": result.format.rawValue, "mediaType": result.format.mediaType, "width": result.width,
                "height": result.height, "bytes": result.bytes, "output": output, "transform": transform.canonicalText,
            ]
            if let origin = result.origin { object["origin"] = origin }
            CLIOutput.printJSON(object)
        } else {
            print("\(result.format.rawValue) \(result.width)x\(result.height) \(result.bytes) bytes -> \(output)")
        }
    }

    /// A file on this thread; a URL through the manager's cache as a variant.
    private func convert(_ transform: ImageTransform) async throws -> (format: OutputFormat, width: Int, height: Int, bytes: Int, origin: String?) {
        var limits = ImageProcessor.Configuration()
        limits.maxSourcePixels = maxPixels
        // a file animated here; a URL's animation is a variant like any other (below)
        if transform.animate, RemoteInput(input).url == nil {
            let encoded = try await animateFile(transform, limits: limits)
            try write(encoded.bytes)
            return (encoded.format, encoded.width, encoded.height, encoded.bytes.count, nil)
        }
        if let frame, let spec = FrameSpec(frame) {
            let bitmap = try await renderFrame(spec)
            let encoded = try ImageProcessor(configuration: limits).process(bitmap: bitmap, transform: transform)
            try write(encoded.bytes)
            return (encoded.format, encoded.width, encoded.height, encoded.bytes.count, nil)
        }
        guard let url = RemoteInput(input).url else {
            let data = try LocalInput.read(input, limit: limits.maxInputBytes)
            let encoded = try ImageProcessor(configuration: limits).process(data, transform: transform)
            try write(encoded.bytes)
            return (encoded.format, encoded.width, encoded.height, encoded.bytes.count, nil)
        }
        var images = ImageUtil.Configuration()
        images.derivedStore = try derived.configuration(s3: try tier.s3.configuration())
        let variant = try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            let util = ImageUtil(manager: manager, configuration: images)
            let options = ImageUtil.Options(pixelBudget: maxPixels)
            // a video's frame or preview: read by range through the chunk store, never loaded whole
            // (nil when the source is no video: then it loads as any image)
            var variant: ImageVariant?
            if transform.frame != nil || transform.animate, FrameSourceKind(pathExtensionOf: url) != .animation {
                let frames = VideoFrameVariants(images: util, video: VideoUtil(manager: manager))
                variant = try await frames.variant(for: url.absoluteString, transform: transform, options: options)
            }
            if variant == nil { variant = try await util.variant(for: url, transform: transform, options: options) }
            await util.derivedStore?.waitForWrites()  // before the manager's client stops
            return variant!
        }
        try variant.data.withUnsafeBytes { try write(Array($0)) }
        return (variant.format, variant.width, variant.height, variant.data.count, variant.origin.rawValue)
    }

    /// The input file made into `transform`'s animation: a video's preview (read with positional
    /// reads), a Lottie animation's frames, or an animated GIF or WebP kept animated.
    private func animateFile(_ transform: ImageTransform, limits: ImageProcessor.Configuration) async throws -> EncodedImage {
        switch ImageUtil.MovingSource(sniffing: try LocalInput.head(of: input)) {
        case .video:
            return try LocalInput.withVideoSource(input) { source in
                try VideoMotion.make(
                    source, transform: transform, accepting: nil, configuration: limits,
                    limits: VideoPreviewDecoder.Configuration(maxPixels: limits.maxSourcePixels))
            }
        case .lottie:
            return try await animateLottie(transform)
        case nil:
            throw CLIFailure(code: "notAnAnimation", message: "\(input) holds no animation: --animate takes a Lottie animation, a video or an animated GIF or WebP")
        case .animatedImage:
            guard transform.framesPerSecond == nil, transform.from == nil, transform.to == nil else {
                throw CLIFailure(code: "invalidTransform", message: "--fps, --from and --to apply to a Lottie animation or a video")
            }
            var kept = transform
            kept.animate = false
            let data = try LocalInput.read(input, limit: limits.maxInputBytes)
            return try ImageProcessor(configuration: limits).process(data, transform: kept)
        }
    }

    /// The Lottie animation of the input file as an animated WebP, GIF or MP4
    /// (LottieUtil.animatedImage).
    private func animateLottie(_ transform: ImageTransform) async throws -> EncodedImage {
        guard case .format(let format) = transform.format, format.supportsAnimation else {
            throw CLIFailure(code: "invalidTransform", message: "--animate writes WebP, GIF or MP4: name the output .webp, .gif or .mp4, or use --format")
        }
        var motion = LottieMotion(
            format: format, framesPerSecond: transform.framesPerSecond, from: transform.from, to: transform.to)
        motion.size = LottieFrameSize(width: transform.width, height: transform.width == nil ? transform.height : nil)
        motion.quality = transform.quality
        motion.lossless = transform.lossless
        if let background = transform.background { motion.background = background }
        return try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            let lottie = LottieUtil(manager: manager)
            let data = try LocalInput.read(input, limit: 256 << 20)
            guard let animation = try LottieDocumentReader().read(data).defaultEntry?.animation else {
                throw CLIFailure(code: "animationNotFound", message: "\(input) holds no animation")
            }
            return try await lottie.animatedImage(of: animation, motion: motion)
        }
    }

    /// The frame of the input video or animation (a file here, a URL through the cache and
    /// VideoUtil's ranges or LottieUtil).
    private func renderFrame(_ spec: FrameSpec) async throws -> Bitmap {
        guard let url = RemoteInput(input).url else {
            if try LocalInput.kind(of: input) == .video {
                return try LocalInput.videoFrame(input, at: try VideoFrameTime(spec)).bitmap
            }
            let data = try LocalInput.read(input, limit: 256 << 20)
            if let format = ImageFormat(sniffing: data.prefix(64)), format == .gif || format == .webp {
                var limits = ImageProcessor.Configuration()
                limits.maxSourcePixels = maxPixels
                return try AnimationProcessor(configuration: limits).frame(of: data, at: spec)
            }
            guard let animation = try LottieDocumentReader().read(data).defaultEntry?.animation else {
                throw CLIFailure(code: "animationNotFound", message: "\(input) holds no animation")
            }
            return try LottieFrameRenderer().render(animation, at: LottieFrameTime(spec, of: animation))
        }
        return try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            let video = VideoUtil(manager: manager)
            var kind = FrameSourceKind(pathExtensionOf: url)
            if kind == nil { kind = FrameSourceKind(prefix: try await video.data(for: url, range: 0..<12)) }
            if kind == .video { return try await video.frame(for: url, at: try VideoFrameTime(spec)).bitmap }
            let head = try await video.data(for: url, range: 0..<12)
            if let format = ImageFormat(sniffing: head), format == .gif || format == .webp {
                let response = try await manager.load(AssetRequest(url: url, kind: .image))
                let data = try await manager.loader.data(for: response)
                var limits = ImageProcessor.Configuration()
                limits.maxSourcePixels = maxPixels
                return try AnimationProcessor(configuration: limits).frame(of: data, at: spec)
            }
            let lottie = LottieUtil(manager: manager)
            let animation = try await lottie.animation(for: url)
            return try await lottie.frame(of: animation, at: LottieFrameTime(spec, of: animation))
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        let file = try OutputFile(path: output)
        try bytes.withUnsafeBytes { try file.write($0) }
        try file.commit()
    }

    static func failure(_ error: any Error) -> CLIFailure {
        if let error = error as? ImagingError { return CLIFailure(code: error.shortDescription, message: error.message) }
        return CLIFailure(error)
    }
}

