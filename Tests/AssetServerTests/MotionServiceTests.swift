import AssetCodecs
import AssetImaging
import AssetPipeline
@testable import AssetServer
import AssetTestSupport
import AssetVideoFrames
import Foundation
import Testing

/// `/v1/image?...&animate=1`: a video's animated preview read by range through the chunk store
/// (the index and the packets of the range, never the file whole, past the source limit too), and
/// a Lottie animation made into an animation, each answered as any variant.
@Suite("GET /v1/image?animate=1 (previews and Lottie animations)")
struct MotionServiceTests {
    /// The first frame at or after `seconds` of an MP4, with the video's duration.
    static func frame(of mp4: [UInt8], at seconds: Double) throws -> VideoFrame {
        let source = VideoFrameSource(size: Int64(mp4.count)) { offset, count in
            guard offset >= 0, offset <= Int64(mp4.count) else { return nil }
            return Array(mp4[Int(offset)..<min(mp4.count, Int(offset) + count)])
        }
        return try VideoFrameDecoder().decode(source, at: .seconds(seconds))
    }

    @Test func aVideosPreviewIsReadByRange() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.images.util.maxInputBytes = 256 << 10 }) { harness in
            let (route, size) = try VideoFrameByRangeTests.serveVideo(harness, at: "/clip")
            // from just after the key frame at 8.33 s: only its packets and the index are read
            let query = "&animate=1&from=8.5s&to=10.5s&fps=5&w=160&format=mp4"
            let first = try await harness.send(harness.endpoint("image", originPath: "/clip", query))
            #expect(first.status == 200, "\(first.text)")
            #expect(first.header("Content-Type") == "video/mp4")
            #expect(first.header("X-Image-Width") == "160" && first.header("X-Image-Height") == "90")
            #expect(route.bodyBytes < size / 3, "fetched \(route.bodyBytes) of \(size)")
            // 2 s at 5 frames a second
            let shown = try Self.frame(of: first.body, at: 0)
            #expect(abs((shown.duration ?? 0) - 2) < 0.002)
            // a variant like any other: its ETag, then memory
            let eTag = try #require(first.header("ETag"))
            let revalidated = try await harness.send(
                harness.endpoint("image", originPath: "/clip", query), headers: [("If-None-Match", eTag)])
            #expect(revalidated.status == 304)
            let again = try await harness.send(harness.endpoint("image", originPath: "/clip", query))
            #expect(again.header("X-Assetpipe-Cache") == "memory" && again.body == first.body)
            // format=auto: WebP for a browser that takes it, GIF for one that does not
            let auto = "&animate=1&from=8.5s&to=9.5s&fps=4&w=64"
            let webp = try await harness.send(harness.endpoint("image", originPath: "/clip", auto), headers: [("Accept", "image/webp,*/*")])
            #expect(webp.header("Content-Type") == "image/webp" && webp.header("Vary") == "Accept")
            #expect(try AnimationReader(webp.body).info.frameCount == 4)
            let gif = try await harness.send(harness.endpoint("image", originPath: "/clip", auto), headers: [("Accept", "*/*")])
            #expect(gif.header("Content-Type") == "image/gif")
            #expect(try AnimationReader(gif.body).info.frameCount == 4)
            // a range outside the video: a typed refusal, nothing cached
            let outside = try await harness.send(harness.endpoint("image", originPath: "/clip", "&animate=1&from=60s&w=64&format=gif"))
            #expect(outside.status == 422 && outside.text.contains("frameOutOfRange"), "\(outside.status) \(outside.text)")
        }
    }

    @Test func aLottieAnimationIsAnimated() async throws {
        try await ServerHarness.with { harness in
            let json = try ServerHarness.fixture("lottie/lottie-docs/parenting.json")
            harness.origin.setRoute("/a.json", .resource(TestResource(content: .bytes(json), eTag: "\"a\"", headers: freshForAnHour)))
            let answer = try await harness.send(
                harness.endpoint("image", originPath: "/a.json", "&animate=1&fps=10&to=1s&w=64"), headers: [("Accept", "image/webp")])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.header("Content-Type") == "image/webp" && answer.header("X-Image-Width") == "64")
            let reader = try AnimationReader(answer.body)
            var shown = 0
            while let frame = try reader.next() { shown += frame.duration }
            #expect(reader.info.frameCount > 1 && shown == 1_100)  // frames 0 to 60 of 60 fps at 10: 11 frames
            // a key that is not one: 400 with the reason
            let wrong = try await harness.send(harness.endpoint("image", originPath: "/a.json", "&fps=10&w=64"))
            #expect(wrong.status == 400 && wrong.text.contains("animate=1"), "\(wrong.status) \(wrong.text)")
        }
    }
}
