/// What a storyboard is made of: a tile every `interval` seconds, at a size, so many to a row,
/// from key frames only or from the exact times.
public struct VideoStoryboardSpec: Sendable, Hashable {
    /// Seconds between tiles (tile `i` is at `i * interval`). Must be positive.
    public var interval: Double
    /// A tile's width, or nil to follow ``tileHeight`` (at least one is set).
    public var tileWidth: Int?
    /// A tile's height, or nil to follow ``tileWidth``.
    public var tileHeight: Int?
    /// Tiles per row of the sheet (fewer when there are fewer tiles). Default 10.
    public var columns: Int
    /// Each tile is the key frame at or before its time, so only the key frames' bytes are read
    /// (the default); false decodes the first frame at or after each time from its key frame.
    public var keyFramesOnly: Bool

    /// A spec; the defaults are a tile every 10 s, 160 px wide, 10 a row, key frames only.
    public init(interval: Double = 10, tileWidth: Int? = 160, tileHeight: Int? = nil, columns: Int = 10, keyFramesOnly: Bool = true) {
        self.interval = interval
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.columns = columns
        self.keyFramesOnly = keyFramesOnly
    }

    /// The spec as one canonical text, for cache keys: `i=10,w=160,h=-,c=10,k=1`.
    public var canonicalText: String {
        "i=\(interval),w=\(tileWidth.map(String.init) ?? "-"),h=\(tileHeight.map(String.init) ?? "-"),c=\(columns),k=\(keyFramesOnly ? 1 : 0)"
    }
}
