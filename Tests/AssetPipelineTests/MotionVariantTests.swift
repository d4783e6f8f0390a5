import AssetCodecs
import AssetImaging
import AssetLoading
import AssetLottie
import AssetLottieRender
import AssetTestSupport
import AssetVideoFrames
import AssetWorkers
import Foundation
import Testing
@testable import AssetPipeline

/// `ImageUtil.variant` with `animate=1`: a Lottie animation's frames and a video's preview made
/// into animated WebP, GIF and MP4, named by the transform and cached as any variant, in process
/// and in worker processes alike.
@Suite("ImageUtil animate=1 variants")
struct MotionVariantTests {
    static let lottie = "lottie/lottie-docs/parenting.json"  // 512 x 512, 180 frames at 60 fps
    static let video = "video/sample.mp4"  // 1080 x 720, 1.024 s at 29.97 fps

    @Test func aLottieAnimationBecomesAnAnimationOfItsStillFrames() async throws {
        let json = try UtilTestSupport.fixture(Self.lottie)
        try await withTestOrigin { origin in
            origin.setRoute("/a.json", .resource(TestResource(content: .bytes(json), eTag: "\"1\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let lottie = LottieUtil(manager: manager)
                let util = ImageUtil(manager: manager, lottie: lottie)
                let url = try #require(URL(string: origin.url("/a.json")))
                let transform = try ImageTransform(parsing: "animate=1,fps=10,from=0.5s,to=1.5s,w=96,lossless=1")
                #expect(transform.canonicalText == "animate=1,fps=10,from=0.5s,to=1.5s,w=96,lossless=1")
                // auto: WebP for a client that takes it
                let webp = try await util.variant(for: url, transform: transform, accepting: [.webp, .jpeg, .png])
                #expect((webp.format, webp.width, webp.height) == (.webp, 96, 96))
                #expect(webp.origin == .transformed)
                // frames 30, 36, ... 90 of the animation (60 fps shown at 10), 100 ms each, each the
                // still frame of its index at the output's size
                let reader = try AnimationReader(webp.data)
                var shown = 0, index = 0
                while let frame = try reader.next() {
                    let still = try await lottie.frame(for: url, at: .frame(30 + 6 * index), size: LottieFrameSize(width: 96))
                    #expect(LottieMotionTests.visible(frame.bitmap) == LottieMotionTests.visible(still), "frame \(index)")
                    shown += frame.duration
                    index += 1
                }
                #expect(index > 2 && shown == 1_100)  // 11 frames, identical neighbours merged
                // GIF for one that does not; named apart
                let gif = try await util.variant(for: url, transform: transform, accepting: [.jpeg, .png])
                #expect(gif.format == .gif && gif.key != webp.key)
                #expect(try AnimationReader(gif.data).info.frameCount == 11)
                // cached as any variant
                #expect(try await util.variant(for: url, transform: transform, accepting: [.webp]).origin == .memory)
                // MP4 asked for
                var mp4Transform = transform
                mp4Transform.format = .format(.mp4)
                let mp4 = try await util.variant(for: url, transform: mp4Transform)
                #expect(mp4.format == .mp4 && mp4.mediaType == "video/mp4")
                let first = try MP4OutputTests.frame(of: Array(mp4.data), at: 0)
                #expect(abs((first.duration ?? 0) - 1.1) < 0.002)
            }
        }
    }

    @Test(arguments: [false, true])
    func aVideoBecomesAnAnimatedPreview(inWorkers: Bool) async throws {
        let mp4 = try UtilTestSupport.fixture(Self.video)
        let workers = inWorkers
            ? WorkerPool(configuration: .init(executable: builtProduct("assetpipe"), arguments: ["worker"], count: 1)) : nil
        defer { workers?.shutdown() }
        try await withTestOrigin { origin in
            origin.setRoute("/v.mp4", .resource(TestResource(content: .bytes(mp4), eTag: "\"v\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let lottie = LottieUtil(manager: manager, configuration: .init(renderWorkers: workers))
                let util = ImageUtil(manager: manager, lottie: lottie)
                let url = try #require(URL(string: origin.url("/v.mp4")))
                let transform = try ImageTransform(parsing: "animate=1,from=0.2s,to=0.8s,fps=5,w=160,format=webp,lossless=1")
                let preview = try await util.variant(for: url, transform: transform)
                #expect((preview.format, preview.width, preview.height) == (.webp, 160, 107))
                // the frames shown at 0.2, 0.4 and 0.6 s, 200 ms each, like the stills at those times
                let reader = try AnimationReader(preview.data)
                var index = 0
                while let frame = try reader.next() {
                    #expect(frame.duration == 200, "frame \(index)")
                    let time = ["0.2", "0.4", "0.6"][index]
                    let still = try await util.variant(for: url, transform: try ImageTransform(parsing: "frame=\(time)s,w=160,format=png"))
                    let expected = try ImageDecoder().decode(still.data).bitmap
                    let score = MP4OutputTests.psnr(frame.bitmap, expected)
                    #expect(score > 30, "frame \(index) at \(time) s: PSNR \(score) dB")
                    index += 1
                }
                #expect(index == 3)
                // MP4 and GIF from the same frames; a range past the end is a typed refusal
                let video = try await util.variant(for: url, transform: try ImageTransform(parsing: "animate=1,fps=5,w=160,format=mp4"))
                #expect((video.format, video.width, video.height) == (.mp4, 160, 106))
                let whole = try MP4OutputTests.frame(of: Array(video.data), at: 0)
                #expect(abs((whole.duration ?? 0) - 1.2) < 0.002)  // 0 to 1.024 s at 5 fps: 6 frames of 200 ms
                await #expect(throws: VideoFrameError.self) {
                    try await util.variant(for: url, transform: try ImageTransform(parsing: "animate=1,from=5s,w=64,format=gif"))
                }
                await #expect(throws: ImagingError.invalidTransform) {
                    try await util.variant(for: url, transform: try ImageTransform(parsing: "animate=1,from=12,w=64,format=gif"))
                }
                // the decoder's limits hold before any frame: the length, then the frames
                let bytes = mp4
                let source = VideoFrameSource(size: Int64(bytes.count)) { offset, count in
                    Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
                }
                let long = try ImageTransform(parsing: "animate=1,to=1s,w=64,format=gif")
                #expect {
                    try VideoMotion.make(
                        source, transform: long, accepting: nil, configuration: .init(), limits: .init(maxSeconds: 0.5))
                } throws: { ($0 as? VideoFrameError)?.code == .tooLarge }
                #expect {
                    try VideoMotion.make(
                        source, transform: long, accepting: nil, configuration: .init(), limits: .init(maxFrames: 5))
                } throws: { ($0 as? VideoFrameError)?.code == .tooLarge }
            }
        }
    }

    @Test func refusals() async throws {
        // the transform's own checks
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: "fps=10") }
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: "animate=1,frame=3") }
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: "animate=1,format=png") }
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: "animate=1,fps=0") }
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: "animate=1,from=tomorrow") }
        let jpeg = try UtilTestSupport.fixture("jpeg/libjpeg-turbo/testorig.jpg")
        let gif = try UtilTestSupport.fixture("gif/wuffs/muybridge.gif")
        try await withTestOrigin { origin in
            origin.setRoute("/p.jpg", .resource(TestResource(content: .bytes(jpeg), headers: freshForAnHour)))
            origin.setRoute("/m.gif", .resource(TestResource(content: .bytes(gif), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                // a still is no animation
                await #expect(throws: ImagingError.notAnAnimation) {
                    try await util.variant(for: URL(string: origin.url("/p.jpg"))!, transform: try ImageTransform(parsing: "animate=1"))
                }
                // an animated GIF plays as it is: animate=1 keeps it, a range is refused
                let kept = try await util.variant(for: URL(string: origin.url("/m.gif"))!, transform: try ImageTransform(parsing: "animate=1,w=20"))
                #expect(try AnimationReader(kept.data).info.frameCount > 1)
                await #expect(throws: ImagingError.invalidTransform) {
                    try await util.variant(for: URL(string: origin.url("/m.gif"))!, transform: try ImageTransform(parsing: "animate=1,fps=3"))
                }
            }
        }
    }
}
