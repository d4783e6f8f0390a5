import AssetCodecs
import CAssetVideoFrame

/// Decodes a storyboard's tiles (``VideoTileSheet``) of an MP4/QuickTime or Matroska/WebM video in
/// one open of the container, reading it only through a ``VideoFrameSource``: the index once, then
/// for each tile the packets it needs. With key frames only (the default) that is the one packet
/// of the key frame at or before the tile's time, decoded once however many tiles share it.
///
/// - Limits are checked before any decode: the tile count (the duration over the interval), the
///   sheet's pixels and the video's declared size.
/// - Blocks its thread for as long as the reads and decodes take: call it off Swift's cooperative
///   pool (a thread of its own, or a worker process).
public struct VideoStoryboardDecoder: Sendable {
    /// The limits of a storyboard.
    public struct Configuration: Sendable, Hashable {
        /// The most tiles (default 1,000: over 2 h 45 min at one tile every 10 s).
        public var maxTiles: Int
        /// The largest frame the decoder may make, and the largest sheet, in pixels (default 8192 x 8192).
        public var maxPixels: Int
        /// The most video packets read for one tile (default 5,000).
        public var maxPackets: Int
        /// Decoder threads; 0 lets FFmpeg pick.
        public var threads: Int

        /// Limits; every parameter defaults to the value documented on its property.
        public init(maxTiles: Int = 1_000, maxPixels: Int = 8192 * 8192, maxPackets: Int = 5_000, threads: Int = 0) {
            self.maxTiles = maxTiles
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

    /// The tiles `spec` asks of `source`.
    /// - Throws: ``VideoFrameError``: `frameOutOfRange` for an interval that is not positive or a
    ///   video of unknown duration, `tooLarge` for a tile size that is not positive or for more
    ///   tiles or pixels than the limits, and the frame decoder's codes.
    public func decode(_ source: VideoFrameSource, spec: VideoStoryboardSpec) throws(VideoFrameError) -> VideoTileSheet {
        guard spec.interval > 0, spec.interval.isFinite else {
            throw VideoFrameError(.frameOutOfRange, "a storyboard's interval must be a positive number of seconds")
        }
        guard spec.tileWidth != nil || spec.tileHeight != nil else {
            throw VideoFrameError(.tooLarge, "a storyboard's tiles need a width or a height")
        }
        for side in [spec.tileWidth, spec.tileHeight].compactMap({ $0 }) where side <= 0 || side > 16_383 {
            throw VideoFrameError(.tooLarge, "a tile's width and height must be 1 to 16383 (asked \(side))")
        }
        guard spec.columns >= 1, spec.columns <= 1_000 else {
            throw VideoFrameError(.tooLarge, "a storyboard has 1 to 1000 columns (asked \(spec.columns))")
        }
        var request = avf_tiles_request()
        request.interval = spec.interval
        request.max_tiles = Int32(clamping: max(1, configuration.maxTiles))
        request.tile_width = Int32(spec.tileWidth ?? 0)
        request.tile_height = Int32(spec.tileHeight ?? 0)
        request.columns = Int32(spec.columns)
        request.key_frames_only = spec.keyFramesOnly ? 1 : 0
        request.max_pixels = Int64(configuration.maxPixels)
        request.max_packets = Int32(clamping: configuration.maxPackets)
        request.threads = Int32(clamping: max(0, configuration.threads))

        var tiles = avf_tiles()
        var message = [CChar](repeating: 0, count: Int(AVF_MESSAGE_CAPACITY))
        let status = source.withCSource { avf_decode_tiles($0, &request, &tiles, &message) }
        defer { avf_tiles_free(&tiles) }
        guard status == AVF_OK.rawValue, let pixels = tiles.pixels, let times = tiles.times else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VideoFrameError(VideoFrameDecoder.code(of: status), text.isEmpty ? "the storyboard could not be decoded" : text)
        }
        let width = Int(tiles.sheet_width), height = Int(tiles.sheet_height)
        let bitmap = Bitmap(
            width: width, height: height, bytesPerRow: width * 4,
            pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
        return VideoTileSheet(
            bitmap: bitmap, tileWidth: Int(tiles.tile_width), tileHeight: Int(tiles.tile_height), columns: Int(tiles.columns),
            times: Array(UnsafeBufferPointer(start: times, count: Int(tiles.count))), duration: tiles.duration,
            rotation: Int(tiles.rotation), container: VideoFrameDecoder.text(tiles.container),
            codec: VideoFrameDecoder.text(tiles.codec), decodedFrames: Int(tiles.decoded), packets: Int(tiles.packets),
            bytesRead: tiles.bytes_read)
    }
}
