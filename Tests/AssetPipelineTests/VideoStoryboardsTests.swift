import AssetCodecs
import AssetImaging
import AssetPipeline
import AssetStorage
import AssetTestSupport
import AssetVideoFrames
import AssetWorkers
import Foundation
import Testing

/// `VideoStoryboards`: a video's sprite sheet and WebVTT read by range from a loopback origin,
/// kept in memory and on disk under the chunk record's validator.
@Suite struct VideoStoryboardsTests {
    static let long = VideoFrameVariantsTests.long

    @Test func aStoryboardOfAnIndexAtTheEndCostsTheIndexAndTheKeyFrames() async throws {
        let bytes = try VideoHarness.fixture(Self.long)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        let served = h.serve("/v.mp4", VideoFrameVariantsTests.resource(bytes))
        let url = h.url("/v.mp4").absoluteString
        let storyboards = VideoStoryboards(images: ImageUtil(manager: h.manager), video: h.video)
        let board = try await storyboards.storyboard(for: url, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160))
        #expect(board.origin == .transformed)
        #expect(board.count == 9 && board.columns == 9)
        #expect((board.tileWidth, board.tileHeight, board.width, board.height) == (160, 90, 1440, 90))
        let sprite = try ImageDecoder().decode(board.sprite)
        #expect(sprite.header.format == .jpeg)
        #expect((sprite.bitmap.width, sprite.bitmap.height) == (1440, 90))
        // the head, the index at the end and two key frames, in 64 KiB chunks
        #expect(served.bodyBytes < bytes.count / 5, "fetched \(served.bodyBytes) of \(bytes.count)")

        let vtt = board.webVTT(spriteURL: "sprite.jpg")
        let lines = vtt.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "WEBVTT")
        let cues = lines.filter { $0.contains("-->") }
        #expect(cues.count == 9)
        #expect(cues.first == "00:00:00.000 --> 00:00:02.000")
        #expect(cues[4] == "00:00:08.000 --> 00:00:10.000")
        #expect(cues.last?.hasPrefix("00:00:16.000 --> 00:00:17.0") == true)
        let fragments = lines.filter { $0.hasPrefix("sprite.jpg#xywh=") }
        #expect(fragments.count == 9)
        #expect(fragments[0] == "sprite.jpg#xywh=0,0,160,90" && fragments[3] == "sprite.jpg#xywh=480,0,160,90")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(board.json(spriteURL: "sprite.jpg").utf8)) as? [String: Any])
        #expect(json["url"] as? String == "sprite.jpg" && json["tile_width"] as? Int == 160)
        #expect((json["tiles"] as? [[String: Any]])?.count == 9)

        // again: memory; once memory is emptied: the disk cache; neither asks the origin
        let requests = served.requestCount
        #expect(try await storyboards.storyboard(for: url, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160)).origin == .memory)
        h.manager.memoryCache(for: .image).removeAll()
        let other = VideoStoryboards(images: ImageUtil(manager: h.manager), video: h.video)
        let fromDisk = try await other.storyboard(for: url, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160))
        #expect(fromDisk.origin == .disk && fromDisk.sprite == board.sprite && fromDisk.times == board.times)
        #expect(served.requestCount == requests)
        // another spec or format is another storyboard
        let webp = try await storyboards.storyboard(for: url, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160), format: .webp)
        #expect(webp.origin == .transformed && webp.key != board.key)
        #expect(try ImageDecoder().decode(webp.sprite).header.format == .webp)
    }

    @Test func aWorkerDecodesTheTilesWithItsReadsComingBackHere() async throws {
        let bytes = try VideoHarness.fixture(Self.long)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        _ = h.serve("/v.mp4", VideoFrameVariantsTests.resource(bytes))
        let pool = WorkerPool(configuration: .init(executable: builtProduct("RenderWorker"), count: 1, timeout: .seconds(30)))
        defer { pool.shutdown() }
        let video = VideoUtil(manager: h.manager, configuration: .init(frameWorkers: pool))
        let inWorker = try await VideoStoryboards(images: ImageUtil(manager: h.manager), video: video)
            .storyboard(for: h.url("/v.mp4").absoluteString, spec: VideoStoryboardSpec(interval: 5, tileWidth: 96), format: .webp)
        #expect(inWorker.count == 4 && pool.statistics.done == 1)
        let here = try VideoStoryboardDecoder().decode(VideoFrameSource(size: Int64(bytes.count)) { offset, count in
            Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }, spec: VideoStoryboardSpec(interval: 5, tileWidth: 96))
        #expect(inWorker.times == here.times && inWorker.width == here.bitmap.width)
    }

    @Test func refusalsAreTypedAndLeaveNothingStored() async throws {
        let bytes = try VideoHarness.fixture(Self.long)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        _ = h.serve("/v.mp4", VideoFrameVariantsTests.resource(bytes))
        _ = h.serve("/page", TestResource(content: .bytes(Array("<html>no video</html>".utf8)), eTag: "\"h\"", headers: [("Cache-Control", "max-age=60")]))
        let storyboards = VideoStoryboards(
            images: ImageUtil(manager: h.manager), video: h.video, configuration: .init(limits: .init(maxTiles: 5)))
        let url = h.url("/v.mp4").absoluteString
        let named = try await storyboards.storyboardRequest(for: url, spec: VideoStoryboardSpec(interval: 2, tileWidth: 160))
        let tooMany = await #expect(throws: VideoFrameError.self) { try await storyboards.storyboard(for: named) }
        #expect(tooMany?.code == .tooLarge)
        #expect(try h.manager.diskCache.metadata(forKey: named.key) == nil)
        let notVideo = await #expect(throws: VideoFrameError.self) {
            try await storyboards.storyboard(for: h.url("/page").absoluteString, spec: VideoStoryboardSpec())
        }
        #expect(notVideo?.code == .notAVideo)
        #expect(try await h.video.cachedRecord(for: h.url("/page")) == nil)
        await #expect(throws: ImagingError.self) {
            try await storyboards.storyboard(for: url, spec: VideoStoryboardSpec(interval: 10), format: .png)
        }
    }
}
