import AssetCodecs
import AssetTestSupport
import Foundation
import Testing

@testable import AssetImaging

/// Animated GIF and WebP sources kept animated through transforms (AnimationProcessor,
/// AnimatedImageEncoder), read back with our AnimationReader (whose frames equal libvips' and
/// libwebp's: AssetCodecsTests.AnimationReaderTests).
@Suite struct AnimationTransformTests {
    static let sources = ["gif/pillow/iss634.gif", "webp/pillow/iss634.webp", "gif/libvips/dispose-previous.gif", "gif/wuffs/muybridge.gif"]

    /// Every frame of `data`, as our reader composites it.
    static func frames(_ data: some ContiguousBytes) throws -> (AnimationInfo, [AnimationFrame]) {
        let reader = try AnimationReader(data)
        var frames: [AnimationFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return (reader.info, frames)
    }

    /// The mean absolute difference per channel, alpha-weighted colour plus alpha.
    static func meanDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0.0
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            let alpha = Double(min(a.pixels[i + 3], b.pixels[i + 3])) / 255
            for c in 0..<3 { total += abs(Double(a.pixels[i + c]) - Double(b.pixels[i + c])) * alpha }
            total += abs(Double(a.pixels[i + 3]) - Double(b.pixels[i + 3]))
        }
        return total / Double(a.pixels.count)
    }

    /// What one source made into one format gives, measured off the test's thread.
    struct Outcome: Sendable {
        var sourceInfo: AnimationInfo
        var info: AnimationInfo
        var format: OutputFormat
        var sniffed: ImageFormat?
        var width: Int
        var height: Int
        var frameCount: Int
        var sourceFrameCount: Int
        var durations: [(Int, Int)]
        var differences: [Double]
        var isAnimated: Bool
    }

    @Test(arguments: sources, [OutputFormat.webp, .gif])
    func anAnimationStaysAnimatedFrameForFrame(_ path: String, _ format: OutputFormat) async throws {
        let data = try ImagingFixtures.data(path)
        // The CPU work on a thread of its own, not the test pool's (other suites' servers need it).
        let outcome = try await onOwnThread { () throws -> Outcome in
            let (sourceInfo, sourceFrames) = try Self.frames(data)
            let processor = ImageProcessor()
            let width = min(80, sourceInfo.width)
            let transform = ImageTransform(width: 80, format: .format(format))
            let plan = try processor.plan(for: data, transform: transform)
            let output = try processor.process(data, plan: plan, transform: transform)
            let (info, frames) = try Self.frames(output.bytes)
            var durations: [(Int, Int)] = []
            var differences: [Double] = []
            for (frame, source) in zip(frames, sourceFrames) {
                durations.append((frame.duration, source.duration))
                // The source frame made into a still of the same size, losslessly: what the frame must show.
                let still = try processor.process(bitmap: source.bitmap, transform: ImageTransform(width: width, format: .format(.png)))
                differences.append(Self.meanDifference(frame.bitmap, try ImagingFixtures.decode(still.bytes)))
            }
            return Outcome(
                sourceInfo: sourceInfo, info: info, format: output.format, sniffed: ImageFormat(sniffing: output.bytes),
                width: output.width, height: output.height, frameCount: frames.count, sourceFrameCount: sourceFrames.count,
                durations: durations, differences: differences, isAnimated: plan.isAnimated)
        }
        #expect(outcome.isAnimated)
        #expect(outcome.format == format)
        #expect(outcome.sniffed == (format == .gif ? .gif : .webp))
        #expect(outcome.info.width == outcome.width && outcome.info.height == outcome.height)
        #expect(outcome.width == min(80, outcome.sourceInfo.width))
        #expect(outcome.info.frameCount == outcome.sourceInfo.frameCount)
        #expect(outcome.info.plays == outcome.sourceInfo.plays)
        #expect(outcome.frameCount == outcome.sourceFrameCount)
        for (index, (made, source)) in outcome.durations.enumerated() {
            // GIF keeps hundredths of a second; a WebP source's milliseconds round to them.
            #expect(abs(made - source) <= (format == .gif ? 5 : 0), "frame \(index)")
        }
        for (index, difference) in outcome.differences.enumerated() {
            #expect(difference < (format == .gif ? 12 : 6), "frame \(index): mean difference \(difference)")
        }
    }

    @Test func framesMadeOnASecondThreadGiveTheSameBytes() throws {
        let data = try ImagingFixtures.data("gif/pillow/iss634.gif")
        var configuration = ImageProcessor.Configuration()
        let transform = ImageTransform(width: 100, format: .format(.webp))
        configuration.overlapDecoding = .off
        let before = FramePipeline.threadsStarted.load(ordering: .relaxed)
        let serial = try ImageProcessor(configuration: configuration).process(data, transform: transform)
        #expect(FramePipeline.threadsStarted.load(ordering: .relaxed) == before)
        configuration.overlapDecoding = .always
        let overlapped = try ImageProcessor(configuration: configuration).process(data, transform: transform)
        #expect(FramePipeline.threadsStarted.load(ordering: .relaxed) > before)
        #expect(overlapped.bytes == serial.bytes)
        // the encoder failing mid-way (past the output limit) stops the maker and ends in its error
        configuration.maxOutputBytes = 2000
        #expect(throws: ImagingError.self) { try ImageProcessor(configuration: configuration).process(data, transform: transform) }
        // and while a frame is being added (an MP4 is written as it goes), with frames in flight
        #expect(throws: ImagingError.outputTooLarge) {
            try ImageProcessor(configuration: configuration).process(data, transform: ImageTransform(width: 100, format: .format(.mp4)))
        }
        // a GIF cut in the middle of a frame: its frames drawn as far as they go, as libvips draws them
        let cut = Array(data.prefix(data.count / 2))
        configuration.maxOutputBytes = 64 << 20
        let partial = try ImageProcessor(configuration: configuration).process(cut, transform: transform)
        #expect(try AnimationReader(partial.bytes).info.frameCount < 42)
    }

    @Test func aStillFormatGivesTheFirstFrame() throws {
        let data = try ImagingFixtures.data("gif/pillow/iss634.gif")
        let processor = ImageProcessor()
        let transform = ImageTransform(width: 80, format: .format(.png))
        #expect(try processor.plan(for: data, transform: transform).isAnimated == false)
        let output = try processor.process(data, transform: transform)
        let (_, sourceFrames) = try Self.frames(data)
        let expected = try processor.process(bitmap: sourceFrames[0].bitmap, transform: transform)
        #expect(try ImagingFixtures.decode(output.bytes) == ImagingFixtures.decode(expected.bytes))
    }

    @Test func autoKeepsTheAnimationInWhatTheClientTakes() throws {
        let data = try ImagingFixtures.data("gif/pillow/iss634.gif")
        let processor = ImageProcessor()
        let transform = ImageTransform(width: 64)
        #expect(try processor.plan(for: data, transform: transform, accepting: [.avif, .webp, .png, .jpeg]).format == .webp)
        #expect(try processor.plan(for: data, transform: transform, accepting: [.png, .jpeg]).format == .gif)
        #expect(try processor.plan(for: data, transform: transform).format == .gif)
        let webp = try ImagingFixtures.data("webp/pillow/iss634.webp")
        #expect(try processor.plan(for: webp, transform: transform).format == .webp)
        var page = transform
        page.page = 0
        #expect(try processor.plan(for: data, transform: page).isAnimated == false)
    }

    @Test func aFrameOfAnAnimationIsAStill() throws {
        let data = try ImagingFixtures.data("gif/pillow/iss634.gif")
        let (_, frames) = try Self.frames(data)
        let animation = AnimationProcessor()
        #expect(try animation.frame(of: data, at: .number(5)) == frames[5].bitmap)
        #expect(try animation.frame(of: data, at: .number(0)) == frames[0].bitmap)
        #expect(throws: CodecError.noSuchPage) { try animation.frame(of: data, at: .number(frames.count)) }
        // The frame shown at a time: the durations added up.
        var elapsed = 0
        for frame in frames.prefix(10) { elapsed += frame.duration }
        #expect(try animation.frame(of: data, at: .seconds(Double(elapsed) / 1000 + 0.001)) == frames[10].bitmap)
        #expect(try animation.frame(of: data, at: .percent(100)) == frames.last!.bitmap)
    }

    @Test func limitsRefuseAnAnimationBeforeAnyFrameIsDecoded() throws {
        let data = try ImagingFixtures.data("gif/generated/frames-2000.gif")
        var configuration = ImageProcessor.Configuration()
        configuration.maxAnimationFrames = 1000
        let processor = ImageProcessor(configuration: configuration)
        let transform = ImageTransform(format: .format(.gif))
        #expect(throws: CodecError.tooLarge) { try processor.process(data, transform: transform) }
        configuration.maxAnimationFrames = 5000
        configuration.maxAnimationPixels = 1000
        #expect(throws: CodecError.tooLarge) { try ImageProcessor(configuration: configuration).process(data, transform: transform) }
    }

    @Test func aGIFOf255ColoursKeepsEveryColourExactly() throws {
        // 255 distinct colours: every palette entry, those past 128 included, is found again.
        var pixels: [UInt8] = []
        for i in 0..<256 {
            let c = UInt8(min(i, 254))
            pixels += [c, UInt8((Int(c) * 7) % 256), UInt8(255 - Int(c)), 255]
        }
        let bitmap = Bitmap(width: 16, height: 16, bytesPerRow: 64, pixels: pixels)
        let decoded = try ImageDecoder().decode(try ImageEncoder().encode(bitmap, as: .gif))
        #expect(decoded.bitmap.pixels == pixels)
    }

    @Test func aPhotoQuantizesCloseToItself() throws {
        // A photograph of many colours: the mean squared error per channel of the dithered GIF. On
        // this file libvips 8.18 (libimagequant) gives 12.7, Pillow's median cut 22.9, ours 20.9;
        // a palette that maps colours to wrong entries gave 50.
        let photo = try ImageDecoder().decode(try ImagingFixtures.data("jpeg/libjpeg-turbo/testorig.jpg")).bitmap
        let gif = try ImageDecoder().decode(try ImageEncoder().encode(photo, as: .gif)).bitmap
        var total = 0.0
        for i in stride(from: 0, to: photo.pixels.count, by: 4) {
            for c in 0..<3 {
                let d = Double(photo.pixels[i + c]) - Double(gif.pixels[i + c])
                total += d * d
            }
        }
        let mse = total / Double(photo.width * photo.height * 3)
        #expect(mse < 23, "mean squared error \(mse)")
    }

    @Test func aStillGIFIsWrittenExactlyWhenItHasFewColours() throws {
        // 4 colours and transparency: every pixel survives quantization exactly.
        var pixels: [UInt8] = []
        let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [0, 0, 0, 0]]
        for y in 0..<16 { for x in 0..<16 { pixels += colours[(x / 4 + y / 4) % 4] } }
        let bitmap = Bitmap(width: 16, height: 16, bytesPerRow: 64, pixels: pixels)
        let bytes = try ImageEncoder().encode(bitmap, as: .gif)
        let decoded = try ImageDecoder().decode(bytes)
        #expect(decoded.bitmap.pixels == pixels)
    }
}
