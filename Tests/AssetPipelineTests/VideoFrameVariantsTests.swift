import AssetCodecs
import AssetImaging
import AssetPipeline
import AssetStorage
import AssetTestSupport
import AssetVideoFrames
import Foundation
import Testing

/// `VideoFrameVariants`: image variants of video frames read by range through the chunk store,
/// keyed by the chunk record's validator.
@Suite struct VideoFrameVariantsTests {
    /// 3 MB, 17 s of 640x360 H.264, its index (moov) at the end.
    static let long = "sample_with_increasing_timestamps_360p.mp4"

    static func resource(_ bytes: [UInt8], eTag: String = "\"v1\"", cacheControl: String = "max-age=3600") -> TestResource {
        TestResource(content: .bytes(bytes), eTag: eTag, headers: [("Cache-Control", cacheControl), ("Content-Type", "video/mp4")])
    }

    /// The variant the whole file gives: its frame decoded from memory, then the same processor.
    static func expected(_ bytes: [UInt8], at time: VideoFrameTime, transform: ImageTransform) throws -> [UInt8] {
        let frame = try VideoFrameDecoder().decode(VideoFrameSource(size: Int64(bytes.count)) { offset, count in
            Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }, at: time)
        return try ImageProcessor().process(bitmap: frame.bitmap, transform: transform).bytes
    }

    @Test func aFrameVariantCostsTheIndexAndOneStretchAndIsKept() async throws {
        let bytes = try VideoHarness.fixture(Self.long)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        let served = h.serve("/v.mp4", Self.resource(bytes))
        let frames = VideoFrameVariants(images: ImageUtil(manager: h.manager), video: h.video)
        let transform = try ImageTransform(parsing: "frame=50%,w=320,format=png")
        let named = try #require(try await frames.variantRequest(for: h.url("/v.mp4").absoluteString, transform: transform))
        #expect(named.validator == "etag:\"v1\"")
        #expect(named.resource.totalLength == Int64(bytes.count))
        let variant = try await frames.variant(for: named)
        #expect(variant.origin == .transformed)
        #expect((variant.width, variant.height) == (320, 180))
        #expect([UInt8](variant.data) == (try Self.expected(bytes, at: .progress(0.5), transform: transform)))
        #expect(served.bodyBytes < bytes.count / 4, "fetched \(served.bodyBytes) of \(bytes.count)")
        // again: the memory cache, no request; once memory is emptied: the disk cache
        let before = served.requestCount
        #expect(try await frames.variant(for: named).origin == .memory)
        h.manager.memoryCache(for: .image).removeAll()
        let other = VideoFrameVariants(images: ImageUtil(manager: h.manager), video: h.video)
        let fromDisk = try await other.variant(for: h.url("/v.mp4").absoluteString, transform: transform)
        #expect(fromDisk?.origin == .disk && fromDisk?.data == variant.data)
        #expect(served.requestCount == before)
        // the same key as the variant of the whole file loaded as an image source
        let whole = try await ImageUtil(manager: h.manager).variantRequest(for: h.url("/v.mp4"), transform: transform)
        #expect(whole.key == named.key)
    }

    @Test func aPreviewIsReadByRangeInWorkersAndACrashIsRenderFailedAndNotKept() async throws {
        let bytes = try VideoHarness.fixture(Self.long)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        let served = h.serve("/v.mp4", Self.resource(bytes))
        let workers = VideoUtilFrameTests.workers()
        defer { workers.shutdown() }
        let transform = try ImageTransform(parsing: "animate=1,from=8.5s,to=9.5s,fps=4,w=64,format=gif")
        // from the key frame at 8.33 s: the index and a stretch
        let video = VideoUtil(manager: h.manager, configuration: .init(frameWorkers: workers))
        let frames = VideoFrameVariants(images: ImageUtil(manager: h.manager), video: video)
        let preview = try #require(try await frames.variant(for: h.url("/v.mp4").absoluteString, transform: transform))
        #expect((preview.format, preview.width) == (.gif, 64))
        #expect(try AnimationReader(preview.data).info.frameCount == 4)
        #expect(served.bodyBytes < bytes.count / 3, "fetched \(served.bodyBytes) of \(bytes.count)")
        #expect(workers.statistics.done == 1)
        // the same bytes in this process
        let here = VideoFrameVariants(images: ImageUtil(manager: h.manager), video: h.video)
        h.manager.memoryCache(for: .image).removeAll()
        let other = try ImageTransform(parsing: "animate=1,from=8.5s,to=9.5s,fps=4,w=64,format=gif,q=99")
        let inProcess = try #require(try await here.variant(for: h.url("/v.mp4").absoluteString, transform: other))
        let inWorker = try #require(try await frames.variant(for: h.url("/v.mp4").absoluteString, transform: other))
        #expect(inWorker.origin == .memory && inProcess.data == inWorker.data)
        // a worker that crashes: renderFailed, nothing kept, and the next one made in process
        let crashing = VideoUtilFrameTests.workers(["crash-video"])
        defer { crashing.shutdown() }
        let failing = VideoFrameVariants(
            images: ImageUtil(manager: h.manager), video: VideoUtil(manager: h.manager, configuration: .init(frameWorkers: crashing)))
        let crashed = try ImageTransform(parsing: "animate=1,from=8.5s,to=9s,fps=2,w=32,format=gif")
        let error = await #expect(throws: VideoFrameError.self) {
            try await failing.variant(for: h.url("/v.mp4").absoluteString, transform: crashed)
        }
        #expect(error?.code == .renderFailed)
        #expect(crashing.statistics.crashed == 1)
        #expect(try await here.variant(for: h.url("/v.mp4").absoluteString, transform: crashed)?.origin == .transformed)
    }

    @Test func aChangedVideoNamesAnotherVariant() async throws {
        let long = try VideoHarness.fixture(Self.long)
        let short = try VideoHarness.fixture("sample.mp4")
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        // no-cache: every naming confirms the stored version with the origin
        let served = h.serve("/v.mp4", Self.resource(long, cacheControl: "no-cache"))
        let frames = VideoFrameVariants(images: ImageUtil(manager: h.manager), video: h.video)
        let transform = try ImageTransform(parsing: "frame=0,w=64,format=png")
        let url = h.url("/v.mp4").absoluteString
        let first = try #require(try await frames.variant(for: url, transform: transform))
        let same = try #require(try await frames.variant(for: url, transform: transform))
        #expect(same.origin == .memory)
        served.replace(Self.resource(short, eTag: "\"v2\"", cacheControl: "no-cache"))
        let named = try #require(try await frames.variantRequest(for: url, transform: transform))
        #expect(named.validator == "etag:\"v2\"")
        let changed = try await frames.variant(for: named)
        #expect(changed.origin == .transformed && changed.key != first.key)
        #expect([UInt8](changed.data) == (try Self.expected(short, at: .first, transform: transform)))
        #expect(try await h.video.cachedRecord(for: h.url("/v.mp4"))?.info.eTag == "\"v2\"")
    }

    @Test func bytesThatAreNoVideoAreNotNamedAndLeaveNoChunks() async throws {
        let jpeg = try [UInt8](Data(contentsOf: VideoHarness.fixtures.deletingLastPathComponent().appendingPathComponent("jpeg/libjpeg-turbo/testorig.jpg")))
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        _ = h.serve("/photo", TestResource(content: .bytes(jpeg), eTag: "\"p\"", headers: [("Cache-Control", "max-age=60")]))
        let frames = VideoFrameVariants(images: ImageUtil(manager: h.manager), video: h.video)
        let named = try await frames.variantRequest(for: h.url("/photo").absoluteString, transform: try ImageTransform(parsing: "frame=0,w=64"))
        #expect(named == nil)
        #expect(try await h.video.cachedRecord(for: h.url("/photo")) == nil)
    }

    @Test func aFramePastTheEndIsATypedErrorAndNothingIsKept() async throws {
        let bytes = try VideoHarness.fixture(Self.long)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        _ = h.serve("/v.mp4", Self.resource(bytes))
        let images = ImageUtil(manager: h.manager)
        let frames = VideoFrameVariants(images: images, video: h.video)
        let named = try #require(try await frames.variantRequest(
            for: h.url("/v.mp4").absoluteString, transform: try ImageTransform(parsing: "frame=60s,w=64,format=png")))
        let error = await #expect(throws: VideoFrameError.self) { try await frames.variant(for: named) }
        #expect(error?.code == .frameOutOfRange)
        #expect(try h.manager.diskCache.metadata(forKey: named.key) == nil)
        #expect(frames.cachedVariant(for: named) == nil)
    }
}
