import AssetCodecs
import AssetImaging
import AssetLottie
import AssetLottieRender
import AssetVideoFrames
import AssetWorkers

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// The kinds of moving source a frame can be taken from, told from the first bytes.
    public enum MovingSource: Sendable {
        /// A Lottie animation: JSON that shows Lottie's keys, or a ZIP (dotLottie) or gzip (`.tgs`)
        /// container, which the reader opens.
        case lottie
        /// An MP4/QuickTime or Matroska/WebM video (`ftyp` at offset 4, the EBML magic).
        case video
        /// A GIF or WebP, whose frames `AnimationProcessor` composites (a still WebP is refused
        /// there as no animation).
        case animatedImage

        /// The kind of `data`, or nil when it is none: the one place that decides that a source
        /// is not an animation.
        public init?(sniffing data: Data) {
            let head = Array(data.prefix(KindSniffer.prefixLength))
            if let format = ImageFormat(sniffing: head), format == .gif || format == .webp {
                self = .animatedImage
            } else if KindSniffer.isDecodableImage(head) {
                return nil  // an AVIF or HEIF image has an ftyp box too
            } else if FrameSourceKind(prefix: head) == .video {
                self = .video
            } else if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x1F, 0x8B]) || KindSniffer.looksLikeLottieJSON(head) {
                self = .lottie
            } else {
                return nil
            }
        }
    }

    /// The encoded variant of a transform with a frame: the still frame of the source at the size
    /// the output needs, then cropped, padded and encoded as any bitmap.
    func frameImage(
        of data: Data, at spec: FrameSpec, transform: ImageTransform, accepting accepted: [OutputFormat]?,
        processor: ImageProcessor
    ) async throws -> EncodedImage {
        let bitmap = try await stillFrame(of: data, at: spec, transform: transform, processor: processor)
        // the frame, its resized copy and the encoder's input and output, at most
        return try await decodeBudget.withReservation(of: bitmap.pixels.count * 3) {
            try await runDecoding { [self] in
                self.transforms.add(1, ordering: .relaxed)
                return try processor.process(bitmap: bitmap, transform: transform, accepting: accepted)
            }
        }
    }

    /// The still frame `spec` names of the source's bytes, as straight-alpha RGBA at least as large
    /// as the transform's resize box: what kind of moving source the bytes are is decided here.
    /// - Throws: `ImagingError.notAnAnimation` for bytes of no moving kind; `LottieError` and
    ///   `LottieRenderError` from the animation.
    private func stillFrame(
        of data: Data, at spec: FrameSpec, transform: ImageTransform, processor: ImageProcessor
    ) async throws -> Bitmap {
        switch MovingSource(sniffing: data) {
        case .lottie:
            return try await lottieFrame(of: data, at: spec, transform: transform, processor: processor)
        case .video:
            return try await videoFrame(of: data, at: spec, processor: processor)
        case .animatedImage:
            let animation = AnimationProcessor(configuration: processor.configuration)
            do {
                return try await runDecoding { try animation.frame(of: data, at: spec) }
            } catch let error as CodecError where error == .unsupported {
                throw ImagingError.notAnAnimation("a frame was asked of a still WebP image: \(error.message)")
            }
        case nil:
            let what = ImageFormat(sniffing: data.prefix(64)).map { "a \($0.rawValue.uppercased()) image" } ?? "bytes that hold no animation"
            throw ImagingError.notAnAnimation(
                "a frame was asked of \(what): a frame is taken of a Lottie animation (JSON, dotLottie or .tgs), a video (MP4, WebM) or an animated GIF or WebP")
        }
    }

    /// A frame of the Lottie animation `data` holds (a dotLottie's default one), parsed from these
    /// very bytes (not from the lottie memory cache, which may hold another version of the URL).
    private func lottieFrame(of data: Data, at spec: FrameSpec, transform: ImageTransform, processor: ImageProcessor) async throws -> Bitmap {
        let document = try await lottie.read(data)
        guard let animation = document.defaultEntry?.animation else { throw LottieError.animationNotFound }
        let size = Self.renderWidth(
            naturalWidth: animation.width, naturalHeight: animation.height, transform: transform,
            configuration: processor.configuration
        ).map { LottieFrameSize(width: $0) } ?? .natural
        return try await lottie.frame(of: animation, at: LottieFrameTime(spec, of: animation), size: size)
    }

    /// A frame of the video `data` holds, decoded with FFmpeg at its own size (the processor
    /// resizes it): in a worker of the Lottie util's render pool when it has one (`assetpipe
    /// worker` serves both kinds of job; its reads are answered from `data`), else here on a
    /// decoding thread.
    /// - Throws: `VideoFrameError`; `frameOutOfRange` for a frame number other than 0 (a video's
    ///   frame is a time or a position).
    private func videoFrame(of data: Data, at spec: FrameSpec, processor: ImageProcessor) async throws -> Bitmap {
        let time = try VideoFrameTime(spec)
        let limits = VideoFrameDecoder.Configuration(maxPixels: processor.configuration.maxSourcePixels)
        let bytes = data, read = Self.reads(of: data)
        if let workers = lottie.configuration.renderWorkers {
            return try await VideoFrameJob.run(
                on: workers, sourceSize: Int64(bytes.count), at: time, size: .natural, limits: limits, reads: read
            ).bitmap
        }
        return try await runDecoding {
            try VideoFrameDecoder(configuration: limits).decode(VideoFrameSource(size: Int64(bytes.count), read: read), at: time).bitmap
        }
    }

    /// Positional reads of `data`, as a video decoder (here or in a worker) takes them.
    static func reads(of data: Data) -> @Sendable (Int64, Int) -> [UInt8]? {
        { offset, count in
            guard offset >= 0, offset <= Int64(data.count) else { return nil }
            let start = data.startIndex + Int(offset)
            return [UInt8](data[start..<min(data.endIndex, start + count)])
        }
    }

    /// The width to render a vector frame at, its height following the aspect ratio: the least
    /// that covers the transform's resize box on both sides, so that the frame is drawn at the size
    /// it is shown (crisp, and no larger than needed) and the resize after it is nothing or a few
    /// pixels. Nil (the animation's own size) when the natural size is not usable or the output is
    /// past the limits: the renderer or the processor then says why.
    static func renderWidth(
        naturalWidth: Double?, naturalHeight: Double?, transform: ImageTransform, configuration: ImageProcessor.Configuration
    ) -> Int? {
        guard let naturalWidth, let naturalHeight, naturalWidth.isFinite, naturalHeight.isFinite,
            naturalWidth >= 1, naturalHeight >= 1, naturalWidth <= 65_536, naturalHeight <= 65_536
        else { return nil }
        let width = Int(naturalWidth.rounded()), height = Int(naturalHeight.rounded())
        let header = ImageHeader(format: .png, width: width, height: height, channels: 4, colorSpace: .rgba, hasAlpha: true)
        guard let plan = try? TransformPlan(header: header, transform: transform, accepted: nil, configuration: configuration) else {
            return nil
        }
        let coveringHeight = (Double(plan.resizeHeight) * Double(width) / Double(height)).rounded(.up)
        return max(plan.resizeWidth, Int(min(coveringHeight, Double(configuration.maxOutputDimension))))
    }
}
