import AssetCodecs
import CAssetVideoFrame

/// What an animated preview of a video shows: from `from` to `to` at `framesPerSecond`, each
/// frame scaled to cover a size.
public struct VideoPreviewSpec: Sendable, Hashable {
    /// Where the preview starts: a time or a position (``VideoFrameTime/first`` is 0 s). Default: 0 s.
    public var from: VideoFrameTime
    /// Where it ends (clipped to the video's duration). Default: 3 seconds after ``from`` when
    /// that is a time, else 3 seconds.
    public var to: VideoFrameTime
    /// Output frames a second, above 0 and at most 100. Default: 10.
    public var framesPerSecond: Double
    /// The least width each frame must cover (nil: that side asks nothing; both nil: the video's
    /// shown size). The frames keep the aspect ratio and are never enlarged.
    public var coverWidth: Int?
    /// The least height each frame must cover, as ``coverWidth``.
    public var coverHeight: Int?

    /// A preview; every parameter defaults to the value documented on its property.
    public init(
        from: VideoFrameTime = .first, to: VideoFrameTime? = nil, framesPerSecond: Double = 10, coverWidth: Int? = nil,
        coverHeight: Int? = nil
    ) {
        self.from = from
        if let to {
            self.to = to
        } else if case .seconds(let seconds) = from {
            self.to = .seconds(seconds + 3)
        } else {
            self.to = .seconds(3)
        }
        self.framesPerSecond = framesPerSecond
        self.coverWidth = coverWidth
        self.coverHeight = coverHeight
    }
}

/// What a preview decode found and read.
public struct VideoPreviewFacts: Sendable, Hashable {
    /// The frames' width (after the container's rotation).
    public var width: Int
    /// The frames' height (after the container's rotation).
    public var height: Int
    /// Output frames handed over.
    public var frames: Int
    /// The video's duration in seconds.
    public var duration: Double
    /// Frames decoded.
    public var decodedFrames: Int
    /// Video packets read.
    public var packets: Int
    /// The source bytes the decode read.
    public var bytesRead: Int64
    /// The demuxer's name.
    public var container: String
    /// The codec's name.
    public var codec: String
}

/// Decodes a video's animated preview with FFmpeg through a ``VideoFrameSource`` (only the index
/// and the packets from the key frame before ``VideoPreviewSpec/from`` to the end of the preview
/// are read) and hands each output frame over as it comes: the frame shown at `from + k / fps` (the
/// last that starts at or before it), scaled by swscale (bicubic) to cover the spec's size, with
/// its duration in milliseconds. Memory is a frame or two, whatever the length.
///
/// Blocks its thread: call it off Swift's cooperative pool, or in a worker (AssetImaging's
/// `VideoPreviewJob`).
public struct VideoPreviewDecoder: Sendable {
    /// The limits of a preview.
    public struct Configuration: Sendable, Hashable {
        /// The largest frame the decoder may make, in pixels. Default: 8192 x 8192.
        public var maxPixels: Int
        /// The most output frames. Default: 1,000.
        public var maxFrames: Int
        /// The longest preview, in seconds of the video. Default: 60.
        public var maxSeconds: Double
        /// The most video packets read in all. Default: 20,000.
        public var maxPackets: Int
        /// Decoder threads; 0 lets FFmpeg pick. Default: 0.
        public var threads: Int

        /// Limits; every parameter defaults to the value documented on its property.
        public init(
            maxPixels: Int = 8192 * 8192, maxFrames: Int = 1_000, maxSeconds: Double = 60, maxPackets: Int = 20_000, threads: Int = 0
        ) {
            self.maxPixels = maxPixels
            self.maxFrames = maxFrames
            self.maxSeconds = maxSeconds
            self.maxPackets = maxPackets
            self.threads = threads
        }
    }

    /// The limits.
    public var configuration: Configuration

    /// A decoder with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Decodes the preview `spec` asks of `source`, handing each frame (RGBA, alpha 255) and its
    /// duration in milliseconds to `take`, in order.
    /// - Throws: ``VideoFrameError`` (`frameOutOfRange` for a range outside the video, `tooLarge`
    ///   past the frame limit), or the error `take` threw.
    @discardableResult
    public func decode(
        _ source: VideoFrameSource, spec: VideoPreviewSpec, into take: (Bitmap, Int) throws -> Void
    ) throws -> VideoPreviewFacts {
        for side in [spec.coverWidth, spec.coverHeight].compactMap({ $0 }) where side <= 0 || side > 65_535 {
            throw VideoFrameError(.tooLarge, "a preview's size must be 1 to 65535 (asked \(side))")
        }
        guard spec.framesPerSecond > 0, spec.framesPerSecond <= 100 else {
            throw VideoFrameError(.frameOutOfRange, "a preview needs a rate above 0 and at most 100")
        }
        var request = avf_run_request()
        (request.from, request.from_is_progress) = Self.bound(spec.from)
        (request.to, request.to_is_progress) = Self.bound(spec.to)
        request.fps = spec.framesPerSecond
        request.cover_width = Int32(spec.coverWidth ?? 0)
        request.cover_height = Int32(spec.coverHeight ?? 0)
        request.max_frames = Int32(clamping: configuration.maxFrames)
        request.max_seconds = configuration.maxSeconds
        request.max_pixels = Int64(configuration.maxPixels)
        request.max_packets = Int32(clamping: configuration.maxPackets)
        request.threads = Int32(clamping: max(0, configuration.threads))
        var info = avf_run_info()
        var message = [CChar](repeating: 0, count: Int(AVF_MESSAGE_CAPACITY))
        return try withoutActuallyEscaping(take) { take in
            let sink = Sink(take)
            let status = source.withCSource { input in
                avf_decode_run(input, &request, { context, rgba, width, height, duration in
                    let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                    let count = Int(width) * Int(height) * 4
                    let bitmap = Bitmap(
                        width: Int(width), height: Int(height), bytesPerRow: Int(width) * 4,
                        pixels: Array(UnsafeBufferPointer(start: rgba, count: count)))
                    do {
                        try sink.take(bitmap, Int(duration))
                        return 0
                    } catch {
                        sink.error = error
                        return 1
                    }
                }, Unmanaged.passUnretained(sink).toOpaque(), &info, &message)
            }
            if let error = sink.error { throw error }
            guard status == AVF_OK.rawValue else {
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw VideoFrameError(VideoFrameDecoder.code(of: status), text.isEmpty ? "the preview could not be decoded" : text)
            }
            return VideoPreviewFacts(
                width: Int(info.width), height: Int(info.height), frames: Int(info.frames), duration: info.duration,
                decodedFrames: Int(info.decoded), packets: Int(info.packets), bytesRead: info.bytes_read,
                container: VideoFrameDecoder.text(info.container), codec: VideoFrameDecoder.text(info.codec))
        }
    }

    /// A time as C's value and flag: seconds, or a fraction of the duration.
    private static func bound(_ time: VideoFrameTime) -> (Double, Int32) {
        switch time {
        case .first: (0, 0)
        case .seconds(let seconds): (seconds, 0)
        case .progress(let progress): (progress, 1)
        }
    }

    /// The caller's closure, reachable from C for the length of a decode, and the error it threw.
    private final class Sink {
        let take: (Bitmap, Int) throws -> Void
        var error: (any Error)?
        init(_ take: @escaping (Bitmap, Int) throws -> Void) { self.take = take }
    }
}
