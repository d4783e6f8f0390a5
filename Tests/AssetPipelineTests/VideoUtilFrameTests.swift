import AssetCodecs
import AssetPipeline
import AssetTestSupport
import AssetVideoFrames
import AssetWorkers
import Foundation
import Testing

/// `VideoUtil.frame`: a video's frame read through the chunk store from a loopback origin, in
/// this process and in worker processes.
@Suite struct VideoUtilFrameTests {
    static func resource(_ bytes: [UInt8]) -> TestResource {
        TestResource(content: .bytes(bytes), eTag: "\"v1\"", headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "video/mp4")])
    }

    /// The decoder's frame of `bytes` read straight from memory.
    static func reference(_ bytes: [UInt8], at time: VideoFrameTime, size: VideoFrameSize = .natural) throws -> VideoFrame {
        try VideoFrameDecoder().decode(VideoFrameSource(size: Int64(bytes.count)) { offset, count in
            Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }, at: time, size: size)
    }

    static func workers(_ arguments: [String] = []) -> WorkerPool {
        WorkerPool(configuration: .init(executable: builtProduct("RenderWorker"), arguments: arguments, count: 1, timeout: .seconds(30)))
    }

    @Test func aFrameInTheMiddleOfAnIndexAtTheEndCostsTheIndexAndOneStretch() async throws {
        // 3 MB, mdat first and moov last: 47 chunks of 64 KiB
        let bytes = try VideoHarness.fixture("sample_with_increasing_timestamps_360p.mp4")
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        let served = h.serve("/v.mp4", Self.resource(bytes))
        let read = try await h.video.readFrame(for: h.url("/v.mp4"), at: .progress(0.5))
        let expected = try Self.reference(bytes, at: .progress(0.5))
        let samePixels = read.frame.bitmap.pixels == expected.bitmap.pixels
        #expect(samePixels)
        #expect(read.frame.time == expected.time && read.frame.time > 8)
        #expect(read.statistics.bytesFromOrigin == Int64(served.bodyBytes))
        #expect(served.bodyBytes < bytes.count / 4, "fetched \(served.bodyBytes) of \(bytes.count) bytes")
        // the same frame again: every chunk it needs is stored
        let before = served.requestCount
        let again = try await h.video.readFrame(for: h.url("/v.mp4"), at: .progress(0.5))
        #expect(served.requestCount == before)
        #expect(again.statistics.bytesFromOrigin == 0)
        let sameAgain = again.frame.bitmap.pixels == expected.bitmap.pixels
        #expect(sameAgain)
    }

    @Test(arguments: ["bbb_480p_vp9_opus_1second.webm", "frames/sample.mkv", "frames/video_rotation_90.mp4", "sample.mp4"])
    func aFrameOverHTTPIsTheFilesFrame(_ name: String) async throws {
        let bytes = try VideoHarness.fixture(name)
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        _ = h.serve("/clip", Self.resource(bytes))
        let frame = try await h.video.frame(for: h.url("/clip"), size: VideoFrameSize(width: 64))
        let expected = try Self.reference(bytes, at: .first, size: VideoFrameSize(width: 64))
        #expect(frame.bitmap.width == 64)
        let samePixels = frame.bitmap.pixels == expected.bitmap.pixels
        #expect(samePixels, "\(name)")
    }

    @Test func aWorkerDecodesWithItsReadsComingBackHere() async throws {
        let bytes = try VideoHarness.fixture("sample_with_increasing_timestamps_360p.mp4")
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        let served = h.serve("/v.mp4", Self.resource(bytes))
        let pool = Self.workers()
        defer { pool.shutdown() }
        let video = VideoUtil(manager: h.manager, configuration: .init(frameWorkers: pool))
        let read = try await video.readFrame(for: h.url("/v.mp4"), at: .seconds(12.5), size: VideoFrameSize(height: 90))
        let expected = try Self.reference(bytes, at: .seconds(12.5), size: VideoFrameSize(height: 90))
        let samePixels = read.frame.bitmap.pixels == expected.bitmap.pixels
        #expect(samePixels)
        #expect(read.frame.bitmap.width == 160 && read.frame.bitmap.height == 90)
        #expect(read.frame.codec == "h264" && read.frame.time == expected.time)
        // the key frame before 12.5 s is at 9.2 s: the index, the start, and 3.3 s of packets
        #expect(served.bodyBytes < bytes.count / 2)
        #expect(pool.statistics.done == 1 && pool.statistics.started == 1)
        // a typed refusal crosses the process boundary as itself
        let error = await #expect(throws: VideoFrameError.self) {
            try await video.frame(for: h.url("/v.mp4"), at: .seconds(60))
        }
        #expect(error?.code == .frameOutOfRange)
    }

    @Test func aCrashedWorkerIsRenderFailedAndTheNextFrameGetsANewOne() async throws {
        let bytes = try VideoHarness.fixture("sample.mp4")
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        _ = h.serve("/v.mp4", Self.resource(bytes))
        let crashing = Self.workers(["crash-video"])
        defer { crashing.shutdown() }
        let video = VideoUtil(manager: h.manager, configuration: .init(frameWorkers: crashing))
        for _ in 0..<2 {
            let error = await #expect(throws: VideoFrameError.self) { try await video.frame(for: h.url("/v.mp4")) }
            #expect(error?.code == .renderFailed)
        }
        #expect(crashing.statistics.crashed == 2 && crashing.statistics.started == 2)
        // and this process goes on: the same frame in process
        let frame = try await h.video.frame(for: h.url("/v.mp4"))
        #expect(frame.bitmap.width == 1080)
    }

    @Test func originFailuresAreTheReadsErrors() async throws {
        let h = try await VideoHarness.start()
        defer { Task { try? await h.stop() } }
        h.origin.setRoute("/missing.mp4", .response(TestResponse(status: 404)))
        let error = await #expect(throws: VideoError.self) { try await h.video.frame(for: h.url("/missing.mp4")) }
        #expect(error?.status == 404)
        // not a video: the decoder's typed refusal
        _ = h.serve("/text", Self.resource(Array(String(repeating: "not a video ", count: 100).utf8)))
        let refusal = await #expect(throws: VideoFrameError.self) { try await h.video.frame(for: h.url("/text")) }
        #expect(refusal?.code == .notAVideo)
    }
}
