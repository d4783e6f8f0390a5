import AssetCodecs
import CAssetVideoFrame

/// A decoded video frame and what it took.
public struct VideoFrame: Sendable {
    /// The pixels: RGBA, alpha 255.
    public var bitmap: Bitmap
    /// The frame's time in seconds from the start of the video.
    public var time: Double
    /// The container's duration in seconds, nil when it does not say.
    public var duration: Double?
    /// The clockwise rotation the container asked for (0, 90, 180 or 270), already applied.
    public var rotation: Int
    /// The demuxer's name (`mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`).
    public var container: String
    /// The codec's name (`h264`, `vp9`, `av1`, ...).
    public var codec: String
    /// The source bytes the decode read (through the source's reads, buffered 64 KiB at a time).
    public var bytesRead: Int64
    /// The video packets decoded to reach the frame.
    public var packets: Int

    /// A frame with its facts.
    public init(
        bitmap: Bitmap, time: Double, duration: Double?, rotation: Int, container: String, codec: String,
        bytesRead: Int64, packets: Int
    ) {
        self.bitmap = bitmap
        self.time = time
        self.duration = duration
        self.rotation = rotation
        self.container = container
        self.codec = codec
        self.bytesRead = bytesRead
        self.packets = packets
    }
}

/// Where a decode reads its video: `size` bytes, read at any offset.
public struct VideoFrameSource: Sendable {
    /// The source's length in bytes.
    public var size: Int64
    /// Up to `count` bytes at `offset` (fewer only at the end), or nil when the read failed. It
    /// is called on the decoding thread and may block there.
    public var read: @Sendable (_ offset: Int64, _ count: Int) -> [UInt8]?

    /// A source of `size` bytes read through `read`.
    public init(size: Int64, read: @escaping @Sendable (_ offset: Int64, _ count: Int) -> [UInt8]?) {
        self.size = size
        self.read = read
    }
}

/// Decodes one frame of an MP4/QuickTime or Matroska/WebM video with FFmpeg's libraries, reading
/// the container only through a ``VideoFrameSource``: the index, then the packets from the key
/// frame before the time up to the frame. No file, network or protocol of FFmpeg's is opened.
///
/// A decode blocks its thread for as long as the reads and the decoding take: call it off Swift's
/// cooperative pool (a thread of its own, or a worker process, as `VideoUtil` does).
public struct VideoFrameDecoder: Sendable {
    /// The limits of a decode.
    public struct Configuration: Sendable, Hashable {
        /// The largest frame the decoder may make, and the largest output, in pixels
        /// (default 8192 x 8192).
        public var maxPixels: Int
        /// The most video packets decoded after the seek before giving up (default 5,000: a
        /// key frame interval of over 80 seconds at 60 frames per second).
        public var maxPackets: Int
        /// Decoder threads; 0 lets FFmpeg pick (as the `ffmpeg` command does).
        public var threads: Int

        /// Limits; the defaults suit previews of ordinary videos.
        public init(maxPixels: Int = 8192 * 8192, maxPackets: Int = 5_000, threads: Int = 0) {
            self.maxPixels = maxPixels
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

    /// The frame of `source` at `time`, at `size`.
    /// - Throws: ``VideoFrameError``.
    public func decode(
        _ source: VideoFrameSource, at time: VideoFrameTime = .first, size: VideoFrameSize = .natural
    ) throws(VideoFrameError) -> VideoFrame {
        for side in [size.width, size.height].compactMap({ $0 }) where side <= 0 || side > Int(Int32.max) {
            throw VideoFrameError(.tooLarge, "a frame's width and height must be positive (asked \(side))")
        }
        var request = avf_request()
        switch time {
        case .first: request.mode = 0
        case .seconds(let seconds): request.mode = 1; request.seconds = seconds
        case .progress(let progress): request.mode = 2; request.progress = progress
        }
        request.width = Int32(size.width ?? 0)
        request.height = Int32(size.height ?? 0)
        request.max_pixels = Int64(configuration.maxPixels)
        request.max_packets = Int32(clamping: configuration.maxPackets)
        request.threads = Int32(clamping: max(0, configuration.threads))

        var frame = avf_frame()
        var message = [CChar](repeating: 0, count: Int(AVF_MESSAGE_CAPACITY))
        let status = source.withCSource { avf_decode_frame($0, &request, &frame, &message) }
        defer { avf_free(&frame) }
        guard status == AVF_OK.rawValue, let pixels = frame.pixels else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VideoFrameError(Self.code(of: status), text.isEmpty ? "the frame could not be decoded" : text)
        }
        let width = Int(frame.width), height = Int(frame.height)
        let bitmap = Bitmap(
            width: width, height: height, bytesPerRow: width * 4,
            pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
        return VideoFrame(
            bitmap: bitmap, time: frame.time, duration: frame.duration > 0 ? frame.duration : nil,
            rotation: Int(frame.rotation), container: Self.text(frame.container), codec: Self.text(frame.codec),
            bytesRead: frame.bytes_read, packets: Int(frame.packets))
    }

    static func code(of status: Int32) -> VideoFrameError.Code {
        switch UInt32(bitPattern: status) {
        case AVF_ERR_CONTAINER.rawValue: .notAVideo
        case AVF_ERR_NO_VIDEO.rawValue: .noVideoStream
        case AVF_ERR_CODEC.rawValue: .unsupportedCodec
        case AVF_ERR_OUT_OF_RANGE.rawValue: .frameOutOfRange
        case AVF_ERR_TOO_LARGE.rawValue: .tooLarge
        case AVF_ERR_READ.rawValue: .readFailed
        case AVF_ERR_TOO_MANY_PACKETS.rawValue: .tooManyPackets
        case AVF_ERR_UNAVAILABLE.rawValue: .decoderUnavailable
        default: .decodeFailed
        }
    }

    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

extension VideoFrameSource {
    /// `body` with this source as C's `avf_source`, alive for the call.
    func withCSource<T>(_ body: (UnsafeMutablePointer<avf_source>) throws -> T) rethrows -> T {
        let box = SourceBox(self)
        var input = avf_source()
        input.context = Unmanaged.passUnretained(box).toOpaque()
        input.size = size
        input.read = { context, buffer, count, offset in
            let box = Unmanaged<SourceBox>.fromOpaque(context!).takeUnretainedValue()
            guard let buffer, count >= 0, let bytes = box.source.read(offset, Int(count)), bytes.count <= Int(count) else {
                return -1
            }
            bytes.withUnsafeBytes { buffer.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
            return Int32(bytes.count)
        }
        return try withExtendedLifetime(box) { try body(&input) }
    }
}

/// Keeps the source alive and reachable from C for the length of a decode.
private final class SourceBox: Sendable {
    let source: VideoFrameSource
    init(_ source: VideoFrameSource) { self.source = source }
}
