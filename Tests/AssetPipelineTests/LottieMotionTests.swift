import AssetCodecs
import AssetImaging
import AssetLottie
import AssetLottieRender
import AssetTestSupport
import AssetWorkers
import Foundation
import Testing
@testable import AssetPipeline

/// Lottie animations made into animated WebP and GIF (LottieUtil.animatedImage): every frame the
/// still frame of the same index, the schedule at the asked frame rate and range, in-process and in
/// render workers alike.
@Suite("Lottie to animated WebP and GIF")
struct LottieMotionTests {
    static let file = "lottie/lottie-ios/LottieLogo1.json"

    /// A pixel's colour where it shows, and nothing where it is transparent (lossless WebP may
    /// change the colour of a transparent pixel).
    static func visible(_ bitmap: Bitmap) -> [UInt8] {
        var out = bitmap.pixels
        for i in stride(from: 0, to: out.count, by: 4) where out[i + 3] == 0 { out[i] = 0; out[i + 1] = 0; out[i + 2] = 0 }
        return out
    }

    @Test func everyFrameIsTheStillFrameOfItsIndex() async throws {
        let data = try UtilTestSupport.fixture(Self.file)
        let animation = try #require(try LottieDocumentReader().read(Data(data)).defaultEntry?.animation)
        let workers = WorkerPool(configuration: .init(executable: builtProduct("assetpipe"), arguments: ["worker"], count: 1))
        defer { workers.shutdown() }
        try await UtilTestSupport.withManager { manager in
            var motion = LottieMotion(format: .webp, framesPerSecond: 10, from: .percent(10), to: .percent(60), size: LottieFrameSize(width: 96))
            motion.lossless = true
            let here = LottieUtil(manager: manager)
            let input = try LottieFrameRenderer().prepare(animation)
            let steps = try motion.steps(of: animation, frameCount: input.frameCount)
            #expect(steps.count > 5)
            #expect(steps.allSatisfy { $0.duration == 100 })
            let output = try await here.animatedImage(of: animation, motion: motion)
            #expect(output.format == .webp && output.width == 96)
            let reader = try AnimationReader(output.bytes)
            #expect(reader.info.plays == 0)
            var index = 0
            while let frame = try reader.next() {
                let still = try await here.frame(of: animation, at: .frame(steps[index].frame), size: motion.size)
                #expect(Self.visible(frame.bitmap) == Self.visible(still), "frame \(index) (animation frame \(steps[index].frame))")
                index += 1
            }
            // WebPAnimEncoder merges a frame equal to the one before: never more frames than steps
            #expect(index > 1 && index <= steps.count)
            // the same bytes when the frames are rendered in a worker process
            let there = LottieUtil(manager: manager, configuration: .init(renderWorkers: workers))
            let remote = try await there.animatedImage(of: animation, motion: motion)
            #expect(remote.bytes == output.bytes)
            #expect(there.renderCount == 0)
            // GIF too, each frame's duration in hundredths
            motion.format = .gif
            let gif = try await here.animatedImage(of: animation, motion: motion)
            let gifReader = try AnimationReader(gif.bytes)
            #expect(gifReader.info.frameCount == steps.count)
            while let frame = try gifReader.next() { #expect(frame.duration == 100) }
        }
    }

    @Test func theScheduleFollowsTheRateAndTheRange() throws {
        let data = try UtilTestSupport.fixture(Self.file)
        let animation = try #require(try LottieDocumentReader().read(Data(data)).defaultEntry?.animation)
        let count = try LottieFrameRenderer().prepare(animation).frameCount
        let rate = try #require(animation.frameRate)
        // its own rate: every frame once, durations adding up to the length
        let all = try LottieMotion().steps(of: animation, frameCount: count)
        #expect(all.map(\.frame) == Array(0..<count))
        #expect(abs(Double(all.map(\.duration).reduce(0, +)) - Double(count) * 1000 / rate) <= 1)
        // half the rate: every other frame
        let half = try LottieMotion(framesPerSecond: rate / 2).steps(of: animation, frameCount: count)
        #expect(half.map(\.frame) == Array(stride(from: 0, to: count, by: 2)))
        // limits and bad values are typed errors
        #expect(throws: ImagingError.outputTooLarge) { try LottieMotion(maxFrames: 3).steps(of: animation, frameCount: count) }
        #expect(throws: ImagingError.invalidTransform) { try LottieMotion(format: .png).steps(of: animation, frameCount: count) }
        #expect(throws: ImagingError.invalidTransform) { try LottieMotion(framesPerSecond: 0).steps(of: animation, frameCount: count) }
        #expect(throws: ImagingError.invalidTransform) { try LottieMotion(from: .percent(80), to: .percent(20)).steps(of: animation, frameCount: count) }
        #expect(throws: LottieRenderError.frameOutOfRange) { try LottieMotion(to: .number(100_000)).steps(of: animation, frameCount: count) }
    }
}
