import AssetImaging
import AssetVideoFrames

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A storyboard of a video, as players show it while seeking: one sprite sheet of small frames
/// taken every ``interval`` seconds, and where each tile sits (``webVTT(spriteURL:)``,
/// ``json(spriteURL:)``).
public struct VideoStoryboard: Sendable {
    /// The sprite sheet, encoded.
    public var sprite: Data
    /// Its format (JPEG or WebP).
    public var format: OutputFormat
    /// The sheet's width in pixels.
    public var width: Int
    /// The sheet's height in pixels.
    public var height: Int
    /// A tile's width in pixels.
    public var tileWidth: Int
    /// A tile's height in pixels.
    public var tileHeight: Int
    /// Tiles per row.
    public var columns: Int
    /// Seconds between tiles: tile `i` stands for `i * interval` up to the next tile (or the end).
    public var interval: Double
    /// The video's duration in seconds.
    public var duration: Double
    /// The time of the frame each tile shows (a key frame at or before its slot, unless exact
    /// frames were asked for).
    public var times: [Double]
    /// The cache key: the video's key and validator, the spec, the format and the renderer.
    public var key: String
    /// Where it came from: memory, the disk cache, or made now.
    public var origin: ImageVariant.Origin

    /// How many tiles.
    public var count: Int { times.count }

    /// The sprite's media type (`image/jpeg`, `image/webp`).
    public var mediaType: String { format.mediaType }

    /// Tile `index`'s slot: from its start to the next tile's (the last ends with the video).
    public func slot(ofTile index: Int) -> (start: Double, end: Double) {
        let start = Double(index) * interval
        return (start, index == count - 1 ? max(duration, start) : Double(index + 1) * interval)
    }

    /// Where tile `index` sits in the sprite: its left, top, width and height in pixels.
    public func frame(ofTile index: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        ((index % columns) * tileWidth, (index / columns) * tileHeight, tileWidth, tileHeight)
    }

    /// The memory it costs in the image memory cache.
    var cost: Int { sprite.count + times.count * 8 + 512 }
}
