import AssetCodecs
import AssetImaging
import AssetLottie
import AssetLottieRender
import AssetVideoFrames
import Foundation
import Testing
@testable import AssetPipeline

/// Animations written as H.264 MP4 (`OutputFormat.mp4`, libx264 through libavcodec): an animated
/// GIF kept through a transform and a Lottie animation, decoded again by FFmpeg (our
/// VideoFrameDecoder) and compared frame by frame with the frames they were made of; the index
/// before the media; the refusals.
@Suite("MP4 output")
struct MP4OutputTests {
    /// The MP4's top-level boxes in order.
    static func boxes(_ bytes: [UInt8]) -> [String] {
        var names: [String] = [], offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            names.append(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return names
    }

    /// The first frame at or after `seconds` of the MP4 `bytes`, with the video's duration.
    static func frame(of bytes: [UInt8], at seconds: Double) throws -> VideoFrame {
        let source = VideoFrameSource(size: Int64(bytes.count)) { offset, count in
            guard offset >= 0, offset <= Int64(bytes.count) else { return nil }
            return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }
        return try VideoFrameDecoder().decode(source, at: .seconds(seconds))
    }

    /// PSNR in dB of RGB `decoded` against `expected` flattened onto white (the MP4's background).
    static func psnr(_ decoded: Bitmap, _ expected: Bitmap) -> Double {
        var squares = 0.0, count = 0.0
        for y in 0..<decoded.height {
            for x in 0..<decoded.width {
                let d = y * decoded.bytesPerRow + x * 4, e = y * expected.bytesPerRow + x * 4
                let alpha = Double(expected.pixels[e + 3]) / 255
                for c in 0..<3 {
                    let flat = Double(expected.pixels[e + c]) * alpha + 255 * (1 - alpha)
                    let difference = Double(decoded.pixels[d + c]) - flat
                    squares += difference * difference
                    count += 1
                }
            }
        }
        let mse = squares / count
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test func anAnimatedGIFStaysAnimatedAsAnMP4() throws {
        let data = try UtilTestSupport.fixture("gif/wuffs/muybridge.gif")
        let source = try AnimationReader(data)
        var durations: [Int] = [], stills: [Bitmap] = []
        while let frame = try source.next() {
            durations.append(frame.duration)
            stills.append(frame.bitmap)
        }
        #expect(stills.count > 5)
        let processor = ImageProcessor()
        let mp4 = try processor.process(data, transform: ImageTransform(format: .format(.mp4), quality: 100))
        #expect(mp4.format == .mp4 && mp4.format.mediaType == "video/mp4")
        // an even size; the index (moov) before the media (mdat): it plays while it downloads
        #expect(mp4.width == stills[0].width & ~1 && mp4.height == stills[0].height & ~1)
        let boxes = Self.boxes(mp4.bytes)
        #expect(boxes.first == "ftyp")
        #expect(try #require(boxes.firstIndex(of: "moov")) < #require(boxes.firstIndex(of: "mdat")))
        // every frame shown for its delay, and looking like the GIF's frame
        var start = 0
        for (index, still) in stills.enumerated() {
            let decoded = try Self.frame(of: mp4.bytes, at: Double(start) / 1000)
            #expect(decoded.bitmap.width == mp4.width && decoded.bitmap.height == mp4.height)
            #expect(abs(decoded.time - Double(start) / 1000) < 0.002, "frame \(index) starts at \(decoded.time) s, not \(start) ms")
            let score = Self.psnr(decoded.bitmap, still)
            #expect(score > 35, "frame \(index): PSNR \(score) dB")
            if index + 1 < stills.count {
                // and not like the next one, where they differ
                let other = Self.psnr(decoded.bitmap, stills[index + 1])
                #expect(other < score, "frame \(index) is as close to frame \(index + 1)")
            }
            start += durations[index] < 20 ? 100 : durations[index]
        }
        let last = try Self.frame(of: mp4.bytes, at: 0)
        #expect(abs((last.duration ?? 0) - Double(start) / 1000) < 0.002, "the video lasts \(last.duration ?? 0) s, the GIF \(start) ms")
        // a transform sizes every frame: 16 px wide, the height following (odd: one row less)
        let small = try processor.process(data, transform: ImageTransform(width: 16, format: .format(.mp4)))
        #expect(small.width == 16 && small.height % 2 == 0)
        #expect(try Self.frame(of: small.bytes, at: 0).bitmap.width == 16)
    }

    @Test func transparentPixelsAreTheBackground() throws {
        let data = try UtilTestSupport.fixture("gif/pillow/dispose_bgnd_transparency.gif")
        var transform = ImageTransform(format: .format(.mp4), quality: 100)
        transform.background = RGBColor(hex: "ff0000")
        let mp4 = try ImageProcessor().process(data, transform: transform)
        let first = try AnimationReader(data).next()!.bitmap
        let decoded = try Self.frame(of: mp4.bytes, at: 0).bitmap
        // the first transparent pixel is red (give or take the YUV round trip)
        let index = try #require(stride(from: 3, to: first.pixels.count, by: 4).first { first.pixels[$0] == 0 }) / 4
        let (x, y) = (index % first.width, index / first.width)
        try #require(x < decoded.width && y < decoded.height)
        let pixel = Array(decoded.pixels[(y * decoded.bytesPerRow + x * 4)..<(y * decoded.bytesPerRow + x * 4 + 3)])
        #expect(pixel[0] > 200 && pixel[1] < 60 && pixel[2] < 60, "a transparent pixel is \(pixel), not red")
    }

    @Test func aLottieAnimationBecomesAnMP4OfItsStillFrames() async throws {
        let data = try UtilTestSupport.fixture(LottieMotionTests.file)
        let animation = try #require(try LottieDocumentReader().read(Data(data)).defaultEntry?.animation)
        try await UtilTestSupport.withManager { manager in
            let lottie = LottieUtil(manager: manager)
            // an odd width: the video is one column narrower
            var motion = LottieMotion(format: .mp4, framesPerSecond: 10, from: .percent(10), to: .percent(40), size: LottieFrameSize(width: 97))
            motion.quality = 100
            let steps = try motion.steps(of: animation, frameCount: try LottieFrameRenderer().prepare(animation).frameCount)
            let video = try await lottie.animatedImage(of: animation, motion: motion)
            #expect(video.format == .mp4 && video.width == 96 && video.height % 2 == 0)
            var start = 0
            for (index, step) in steps.enumerated() {
                let decoded = try Self.frame(of: video.bytes, at: Double(start) / 1000)
                let still = try await lottie.frame(of: animation, at: .frame(step.frame), size: motion.size)
                let score = Self.psnr(decoded.bitmap, still)
                #expect(score > 35, "frame \(index) (animation frame \(step.frame)): PSNR \(score) dB")
                start += step.duration
            }
            let whole = try Self.frame(of: video.bytes, at: 0)
            #expect(abs((whole.duration ?? 0) - Double(start) / 1000) < 0.002)
        }
    }

    @Test func refusals() throws {
        let gif = try UtilTestSupport.fixture("gif/wuffs/muybridge.gif")
        let png = try UtilTestSupport.fixture("png/pngsuite/basn6a08.png")
        let processor = ImageProcessor()
        // a still is not a video
        #expect(throws: ImagingError.unsupportedFormat) {
            try processor.process(png, transform: ImageTransform(format: .format(.mp4)))
        }
        // nor is one frame of an animation
        let still = try #require(try AnimationReader(gif).next()).bitmap
        #expect(throws: ImagingError.unsupportedFormat) {
            try processor.process(bitmap: still, transform: ImageTransform(format: .format(.mp4)), accepting: nil)
        }
        // the output limit holds
        var configuration = ImageProcessor.Configuration()
        configuration.maxOutputBytes = 2_000
        #expect(throws: ImagingError.outputTooLarge) {
            try ImageProcessor(configuration: configuration).process(gif, transform: ImageTransform(format: .format(.mp4), quality: 100))
        }
        // format=auto never picks it, even for a client that takes video/mp4
        let auto = try processor.process(gif, transform: ImageTransform(), accepting: [.mp4, .gif])
        #expect(auto.format == .gif)
    }
}
