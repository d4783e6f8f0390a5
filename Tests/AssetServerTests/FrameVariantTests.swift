import AssetCodecs
import AssetImaging
import AssetLoading
import AssetPipeline
@testable import AssetServer
import AssetTestSupport
import AssetVideoFrames
import AssetWorkers
import Foundation
import Testing

/// `/v1/image` with `frame=`: still frames of Lottie animations as variants like any other, and a
/// crashed or hung render answered as `render_failed` while the service lives on.
@Suite("GET /v1/image?frame= (Lottie frames)")
struct FrameVariantTests {
    /// lottie-docs' parenting example: 512x512, 180 frames at 60 fps, moving.
    static let moving = "lottie/lottie-docs/parenting.json"
    /// lottie-docs' solid layer: 512x512 of opaque #ff0000, the same in every frame.
    static let solid = "lottie/lottie-docs/layers-solid.json"

    static func serve(_ harness: ServerHarness, _ fixture: String, at path: String, eTag: String = "\"a1\"") throws {
        harness.origin.setRoute(path, .resource(TestResource(
            content: .bytes(try ServerHarness.fixture(fixture)), eTag: eTag, headers: freshForAnHour)))
    }

    static func decoded(_ body: [UInt8]) throws -> Bitmap {
        try ImageDecoder().decode(Data(body)).bitmap
    }

    @Test func queryFormFramesAreSizedEncodedAndCachedVariants() async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, Self.moving, at: "/a.json")
            let first = try await harness.send(harness.endpoint("image", originPath: "/a.json", "&frame=0&w=128"))
            #expect(first.status == 200, "\(first.text)")
            #expect(first.header("Content-Type") == "image/png")  // alpha, and no AVIF or WebP accepted
            #expect(first.header("X-Image-Width") == "128" && first.header("X-Image-Height") == "128")
            #expect(first.header("X-Assetpipe-Cache") == "miss")
            let bitmap = try Self.decoded(first.body)
            #expect((bitmap.width, bitmap.height) == (128, 128))

            let again = try await harness.send(harness.endpoint("image", originPath: "/a.json", "&frame=0&w=128"))
            #expect(again.header("X-Assetpipe-Cache") == "memory")
            #expect(again.body == first.body)
            #expect(again.header("ETag") == first.header("ETag"))

            // another frame is another variant; one frame in three spellings is one picture
            var middles: [[UInt8]] = []
            for frame in ["90", "50%25", "1.5s"] {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/a.json", "&frame=\(frame)&w=128"))
                #expect(answer.status == 200)
                #expect(answer.header("X-Assetpipe-Cache") == "miss", "\(frame)")
                middles.append(answer.body)
            }
            #expect(middles[0] != first.body)
            #expect(middles[0] == middles[1] && middles[1] == middles[2])

            // format=auto follows Accept as for any image
            let avif = try await harness.send(
                harness.endpoint("image", originPath: "/a.json", "&frame=0&w=64"), headers: [("Accept", ImageServiceTests.chromeAccept)])
            #expect(avif.header("Content-Type") == "image/avif")
            #expect(avif.header("Vary") == "Accept")
            #expect(ImageServiceTests.sniff(avif.body) == "avif")
            #expect(harness.origin.requestCount(path: "/a.json") == 1)
        }
    }

    @Test func theFrameIsRenderedAtTheSizeAskedAndCroppedLikeAnImage() async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, Self.solid, at: "/solid.json")
            let answer = try await harness.send(harness.endpoint("image", originPath: "/solid.json", "&frame=0&w=60&h=20&fit=cover&format=png"))
            #expect(answer.status == 200, "\(answer.text)")
            let bitmap = try Self.decoded(answer.body)
            #expect((bitmap.width, bitmap.height) == (60, 20))
            #expect(stride(from: 0, to: bitmap.pixels.count, by: 4).allSatisfy { bitmap.pixels[$0..<$0 + 4] == [255, 0, 0, 255] })
            // not enlarged past the animation's own 512 unless asked, as images are not
            let large = try await harness.send(harness.endpoint("image", originPath: "/solid.json", "&frame=0&w=900&format=webp"))
            #expect(large.header("X-Image-Width") == "512")
            let enlarged = try await harness.send(harness.endpoint("image", originPath: "/solid.json", "&frame=0&w=900&enlarge=1&format=webp"))
            #expect(enlarged.header("X-Image-Width") == "900")
        }
    }

    @Test(arguments: ["lottie/lottie-ios/DotLottie/confused.lottie", "lottie/lottie-android/winners.tgs"])
    func dotLottieAndTelegramStickersGiveFramesToo(_ fixture: String) async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, fixture, at: "/anim")
            let answer = try await harness.send(harness.endpoint("image", originPath: "/anim", "&frame=0&w=96&format=webp"))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.header("X-Image-Width") == "96")
            #expect(ImageServiceTests.sniff(answer.body) == "webp")
        }
    }

    @Test func thePathFormIsTheQueryForm() async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, Self.moving, at: "/p.json")
            let source = harness.origin.url("/p.json")
            let transform = try ImageTransform(parsing: "frame=50%,w=100,format=webp")
            let path = ImageTargets.path(for: transform, source: source)
            #expect(path.contains("/frame:50%25,w:100/"))
            let byPath = try await harness.send(path)
            #expect(byPath.status == 200, "\(byPath.text)")
            #expect(byPath.header("Content-Type") == "image/webp")
            let byQuery = try await harness.send(ImageTargets.query(for: transform, source: source))
            #expect(byQuery.status == 200)
            #expect(byQuery.body == byPath.body)
            #expect(byQuery.header("ETag") == byPath.header("ETag"))
            #expect(byQuery.header("X-Assetpipe-Cache") == "memory")
            let otherFrame = try await harness.send(path.replacingOccurrences(of: "frame:50%25", with: "frame:0"))
            #expect(otherFrame.status == 200)
            #expect(otherFrame.body != byPath.body)
        }
    }

    @Test func theSignatureCoversTheFrame() async throws {
        let signer = ImageURLSigner(key: Array("0123456789abcdef-test-key".utf8), salt: Array("pepper".utf8))
        try await ServerHarness.with({ configuration, _ in configuration.images.signer = signer }) { harness in
            try Self.serve(harness, Self.moving, at: "/s.json")
            let source = harness.origin.url("/s.json")
            let transform = try ImageTransform(parsing: "frame=1.5s,w=64,format=png")
            #expect(signer.signature(for: transform, source: source) != signer.signature(for: try ImageTransform(parsing: "w=64,format=png"), source: source))
            let signed = signer.queryTarget(for: transform, source: source)
            let otherFrame = try await harness.send(signed.replacingOccurrences(of: "frame=1.5s", with: "frame=2s"))
            #expect(otherFrame.errorCode == "bad_signature")
            let dropped = try await harness.send(signed.replacingOccurrences(of: "frame=1.5s&", with: ""))
            #expect(dropped.errorCode == "bad_signature")
            #expect(harness.origin.requestCount(path: "/s.json") == 0)
            let good = try await harness.send(signed)
            #expect(good.status == 200, "\(good.text)")
            let goodPath = try await harness.send(signer.pathTarget(for: transform, source: source))
            #expect(goodPath.status == 200)
            #expect(goodPath.body == good.body)
        }
    }

    @Test func aSourceThatIsNoAnimationAndAFramePastTheEndAreTypedErrors() async throws {
        try await ServerHarness.with { harness in
            try ImageServiceTests.serveJPEG(harness)
            try Self.serve(harness, Self.moving, at: "/m.json")
            let image = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", "&frame=0&w=64"))
            #expect(image.status == 422)
            #expect(image.errorCode == "not_an_animation")
            // the same source without a frame is an image variant as ever
            let plain = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", "&w=64"))
            #expect(plain.status == 200)
            let past = try await harness.send(harness.endpoint("image", originPath: "/m.json", "&frame=100000&w=64"))
            #expect(past.status == 422)
            #expect(past.errorCode == "frame_out_of_range")
            let bad = try await harness.send(harness.endpoint("image", originPath: "/m.json", "&frame=soon"))
            #expect(bad.status == 400)
            #expect(bad.errorCode == "invalid_transform")
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"not_an_animation\"} 1"))
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"frame_out_of_range\"} 1"))
        }
    }

    @Test func aChangedSourceGivesANewFrameVariant() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/c.json", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture(Self.moving)), eTag: "\"one\"", headers: [("Cache-Control", "no-cache")])))
            let target = harness.endpoint("image", originPath: "/c.json", "&frame=0&w=64&format=png")
            let first = try await harness.send(target)
            #expect(first.status == 200)
            let same = try await harness.send(target)
            #expect(same.header("ETag") == first.header("ETag"))
            #expect(same.header("X-Assetpipe-Cache") == "revalidated")
            harness.origin.setRoute("/c.json", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture(Self.solid)), eTag: "\"two\"", headers: [("Cache-Control", "no-cache")])))
            let changed = try await harness.send(target)
            #expect(changed.status == 200)
            #expect(changed.header("ETag") != first.header("ETag"))
            #expect(changed.header("X-Assetpipe-Cache") == "miss")
            let bitmap = try Self.decoded(changed.body)
            #expect(bitmap.pixels[0..<4] == [255, 0, 0, 255])
        }
    }

    /// The frame of a video at `time`, decoded here, then resized and encoded as the service does.
    static func expectedVideoFrame(_ bytes: [UInt8], at time: VideoFrameTime, transform: String) throws -> [UInt8] {
        let frame = try VideoFrameDecoder().decode(VideoFrameSource(size: Int64(bytes.count)) { offset, count in
            Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }, at: time)
        return try ImageProcessor().process(bitmap: frame.bitmap, transform: try ImageTransform(parsing: transform)).bytes
    }

    @Test(arguments: [false, true])
    func aVideosFrameIsAVariantToo(inWorkers: Bool) async throws {
        let pool = inWorkers ? WorkerPool(configuration: .init(executable: builtProduct("RenderWorker"), count: 1)) : nil
        defer { pool?.shutdown() }
        try await ServerHarness.with({ configuration, _ in configuration.lottie.renderWorkers = pool }) { harness in
            // 17 s of 640x360 H.264, the index at the end
            let bytes = try ServerHarness.fixture("video/sample_with_increasing_timestamps_360p.mp4")
            harness.origin.setRoute("/v.mp4", .resource(TestResource(content: .bytes(bytes), eTag: "\"v1\"", headers: freshForAnHour)))
            let first = try await harness.send(harness.endpoint("image", originPath: "/v.mp4", "&frame=2.5s&w=320&format=png"))
            #expect(first.status == 200, "\(first.text)")
            #expect(first.header("X-Image-Width") == "320" && first.header("X-Image-Height") == "180")
            let expected = try Self.expectedVideoFrame(bytes, at: .seconds(2.5), transform: "w=320,format=png")
            #expect(first.body == expected)
            let again = try await harness.send(harness.endpoint("image", originPath: "/v.mp4", "&frame=2.5s&w=320&format=png"))
            #expect(again.header("X-Assetpipe-Cache") == "memory")
            let start = try await harness.send(harness.endpoint("image", originPath: "/v.mp4", "&frame=0&w=320&format=png"))
            #expect(start.status == 200)
            #expect(start.body != first.body)
            // a frame number is no time in a video; a time past its end
            for frame in ["30", "60s"] {
                let refused = try await harness.send(harness.endpoint("image", originPath: "/v.mp4", "&frame=\(frame)&w=320&format=png"))
                #expect(refused.status == 422, "\(frame)")
                #expect(refused.errorCode == "frame_out_of_range", "\(frame)")
            }
            if let pool { #expect(pool.statistics.done == 2 && pool.statistics.failed == 1) }
        }
    }

    /// A server whose frames render in `RenderWorker mode MARKER` processes, with the marker file made.
    static func withMisbehavingWorkers(
        _ mode: String, timeout: Duration, _ body: (ServerHarness, WorkerPool) async throws -> Void
    ) async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-\(mode)-\(UUID().uuidString)")
        try Data().write(to: marker)
        defer { try? FileManager.default.removeItem(at: marker) }
        let pool = WorkerPool(configuration: .init(
            executable: builtProduct("RenderWorker"), arguments: [mode, marker.path], count: 1, timeout: timeout))
        defer { pool.shutdown() }
        try await ServerHarness.with({ configuration, _ in configuration.lottie.renderWorkers = pool }) { harness in
            try await body(harness, pool)
        }
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the worker never misbehaved")
    }

    @Test(arguments: [("crash-once", "crashed"), ("hang-once", "timed_out")])
    func aCrashedOrHungRenderIsRenderFailedAndTheNextIsAnswered(_ mode: String, _ result: String) async throws {
        try await Self.withMisbehavingWorkers(mode, timeout: .seconds(2)) { harness, pool in
            try Self.serve(harness, Self.moving, at: "/w.json")
            let target = harness.endpoint("image", originPath: "/w.json", "&frame=0&w=64&format=png")
            let failed = try await harness.send(target)
            #expect(failed.status == 500)
            #expect(failed.errorCode == "render_failed")
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"render_failed\"} 1"))
            #expect(metrics.contains("assetpipe_render_jobs_total{result=\"\(result)\"} 1"))
            // a new worker takes the next request, the same variant included: failures are not kept
            let next = try await harness.send(target)
            #expect(next.status == 200, "\(next.text)")
            #expect(try Self.decoded(next.body).width == 64)
            let other = try await harness.send(harness.endpoint("image", originPath: "/w.json", "&frame=90&w=64&format=png"))
            #expect(other.status == 200)
            #expect(pool.statistics.started == 2)
            let after = try await harness.send("/metrics").text
            #expect(after.contains("assetpipe_render_jobs_total{result=\"done\"} 2"))
            #expect(after.contains("assetpipe_render_workers_started_total 2"))
        }
    }
}
