import AssetCodecs
import AssetVideoFrames
import Foundation
import Testing

/// Storyboards of the corpus's videos decoded through positional reads: each tile is the frame
/// the frame decoder gives at that time and size, key frames are read once, limits refuse first.
@Suite struct VideoStoryboardDecoderTests {
    typealias FileSource = VideoFrameDecoderTests.FileSource

    /// 17.064 s of 640x360 H.264, index at the end, key frames at 0, 8.33 and 9.20 s.
    static let long = "sample_with_increasing_timestamps_360p.mp4"

    /// The tile `index` of `sheet`'s sheet as packed RGBA rows.
    static func tile(_ sheet: VideoTileSheet, _ index: Int) -> [UInt8] {
        let (x, y, width, height) = sheet.frame(ofTile: index)
        var pixels: [UInt8] = []
        for row in y..<(y + height) {
            let start = (row * sheet.bitmap.width + x) * 4
            pixels += sheet.bitmap.pixels[start..<(start + width * 4)]
        }
        return pixels
    }

    @Test func keyFrameTilesAreTheKeyFramesAtTheirSizeEachDecodedOnce() throws {
        let file = try FileSource(Self.long)
        let sheet = try VideoStoryboardDecoder().decode(file.source, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160, columns: 4))
        // ceil(17.064 / 2) = 9 tiles, 4 a row: 3 rows of 160x90
        #expect(sheet.count == 9)
        #expect((sheet.tileWidth, sheet.tileHeight, sheet.columns) == (160, 90, 4))
        #expect((sheet.bitmap.width, sheet.bitmap.height) == (640, 270))
        #expect(sheet.codec == "h264" && abs(sheet.duration - 17.064) < 0.05)
        // each tile shows the key frame at or before its slot: 0 s up to 8 s, then 9.2 s (the key
        // frame at 8.33 s is no slot's)
        for (index, time) in sheet.times.enumerated() {
            #expect(time <= Double(index) * 2 + 0.001, "tile \(index) at \(time)")
        }
        #expect(sheet.times[0] == 0 && sheet.times[4] == 0)
        #expect(abs(sheet.times[5] - 9.2) < 0.01 && abs(sheet.times[8] - 9.2) < 0.01)
        // two key frames, two decodes, one packet a tile
        #expect(sheet.decodedFrames == 2)
        #expect(sheet.packets == 9)
        // a tile is the frame decoder's frame at the key frame's time and the tile's size
        for index in [0, 5, 8] {
            let frame = try VideoFrameDecoder().decode(
                FileSource(bytes: file.bytes).source, at: index == 0 ? .first : .seconds(sheet.times[index]),
                size: VideoFrameSize(width: 160, height: 90))
            let same = Self.tile(sheet, index) == frame.bitmap.pixels
            #expect(same, "tile \(index)")
        }
        // the last row's unused place is opaque black
        let blank = Self.tile(sheet, 9)
        #expect(stride(from: 0, to: blank.count, by: 4).allSatisfy { blank[$0..<$0 + 4] == [0, 0, 0, 255] })
        // the index and two key frames: a small share of the file (64 KiB reads)
        #expect(file.read.withLock { $0.bytes } < file.bytes.count / 4, "read \(file.read.withLock { $0.bytes }) of \(file.bytes.count)")
    }

    @Test func exactTilesAreTheFramesAtTheirTimes() throws {
        let file = try FileSource(Self.long)
        let sheet = try VideoStoryboardDecoder().decode(
            file.source, spec: VideoStoryboardSpec(interval: 5, tileWidth: nil, tileHeight: 45, keyFramesOnly: false))
        #expect(sheet.count == 4)
        #expect((sheet.tileWidth, sheet.tileHeight, sheet.columns) == (80, 45, 4))
        for (index, time) in sheet.times.enumerated() {
            #expect(time >= Double(index) * 5 - 0.001 && time < Double(index) * 5 + 0.1, "tile \(index) at \(time)")
        }
        let frame = try VideoFrameDecoder().decode(FileSource(bytes: file.bytes).source, at: .seconds(10), size: VideoFrameSize(width: 80, height: 45))
        let same = Self.tile(sheet, 2) == frame.bitmap.pixels
        #expect(same)
        #expect(sheet.decodedFrames > sheet.count)
    }

    @Test(arguments: ["bbb_480p_vp9_opus_1second.webm", "frames/sample.mkv", "frames/video_rotation_90.mp4"])
    func otherContainersAndARotatedVideo(_ name: String) throws {
        let file = try FileSource(name)
        let sheet = try VideoStoryboardDecoder().decode(file.source, spec: VideoStoryboardSpec(interval: 0.5, tileWidth: 64))
        let first = try VideoFrameDecoder().decode(FileSource(bytes: file.bytes).source, at: .first, size: VideoFrameSize(width: 64))
        #expect(sheet.tileHeight == first.bitmap.height)
        #expect(sheet.rotation == first.rotation)
        let same = Self.tile(sheet, 0) == first.bitmap.pixels
        #expect(same, "\(name)")
    }

    @Test func limitsAndBadSpecsAreTypedRefusals() throws {
        let file = try FileSource(Self.long)
        let tooMany = VideoStoryboardDecoder(configuration: .init(maxTiles: 8))
        let refused = #expect(throws: VideoFrameError.self) {
            try tooMany.decode(file.source, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160))
        }
        #expect(refused?.code == .tooLarge && refused?.message.contains("9 tiles") == true, "\(String(describing: refused))")
        // refused after the index and the streams' first packets, before any tile
        #expect(file.read.withLock { $0.bytes } < 256 << 10, "read \(file.read.withLock { $0.bytes })")
        let small = VideoStoryboardDecoder(configuration: .init(maxPixels: 160 * 90 * 8))
        #expect(throws: VideoFrameError.self) { try small.decode(file.source, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160)) }
        for spec in [VideoStoryboardSpec(interval: 0), VideoStoryboardSpec(interval: .nan), VideoStoryboardSpec(tileWidth: 0),
                     VideoStoryboardSpec(tileWidth: nil, tileHeight: nil), VideoStoryboardSpec(columns: 0)] {
            #expect(throws: VideoFrameError.self) { try VideoStoryboardDecoder().decode(file.source, spec: spec) }
        }
        let notVideo = FileSource(bytes: Array(repeating: 0x41, count: 4_096))
        let error = #expect(throws: VideoFrameError.self) { try VideoStoryboardDecoder().decode(notVideo.source, spec: .init()) }
        #expect(error?.code == .notAVideo)
    }
}
