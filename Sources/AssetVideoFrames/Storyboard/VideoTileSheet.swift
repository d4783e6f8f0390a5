import AssetCodecs

/// A storyboard's tiles: small frames of a video at a fixed interval, `columns` to a row of one
/// sheet (a sprite), and the time each shows.
public struct VideoTileSheet: Sendable {
    /// The sheet: RGBA, alpha 255; a last row that is not full is black past its tiles.
    public var bitmap: Bitmap
    /// A tile's width in pixels.
    public var tileWidth: Int
    /// A tile's height in pixels.
    public var tileHeight: Int
    /// Tiles per row.
    public var columns: Int
    /// The time in seconds each tile shows, in order (tile `i` is at column `i % columns`, row
    /// `i / columns`). With key frames only, the key frame's own time, at or before the tile's.
    public var times: [Double]
    /// The video's duration in seconds.
    public var duration: Double
    /// The clockwise rotation the container asked for (0, 90, 180 or 270), already applied.
    public var rotation: Int
    /// The demuxer's name.
    public var container: String
    /// The codec's name.
    public var codec: String
    /// Frames decoded (a key frame shared by several tiles is decoded once).
    public var decodedFrames: Int
    /// Video packets read.
    public var packets: Int
    /// The source bytes the decode read.
    public var bytesRead: Int64

    /// A sheet with its facts.
    public init(
        bitmap: Bitmap, tileWidth: Int, tileHeight: Int, columns: Int, times: [Double], duration: Double, rotation: Int,
        container: String, codec: String, decodedFrames: Int, packets: Int, bytesRead: Int64
    ) {
        self.bitmap = bitmap
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.columns = columns
        self.times = times
        self.duration = duration
        self.rotation = rotation
        self.container = container
        self.codec = codec
        self.decodedFrames = decodedFrames
        self.packets = packets
        self.bytesRead = bytesRead
    }

    /// How many tiles.
    public var count: Int { times.count }

    /// Where tile `index` sits in the sheet: its left, top, width and height in pixels.
    public func frame(ofTile index: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        ((index % columns) * tileWidth, (index / columns) * tileHeight, tileWidth, tileHeight)
    }
}
