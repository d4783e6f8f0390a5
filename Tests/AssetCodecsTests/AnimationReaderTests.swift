import Foundation
import Testing

@testable import AssetCodecs

/// One animated fixture as libvips 8.18 composites it (Fixtures/animation/reference-frames.tsv,
/// written by scripts/fixtures/reference-animations).
struct AnimationReference: CustomTestStringConvertible, Sendable {
    var path: String
    var width: Int
    var height: Int
    var plays: Int
    var frames: [(sha256: String, delay: Int)]

    var testDescription: String { path }

    static let all: [AnimationReference] = {
        var byPath: [String: AnimationReference] = [:]
        var order: [String] = []
        for row in Fixtures.table("animation/reference-frames.tsv") {
            guard let path = row["path"], let frame = row["frame"], let width = row["width"].flatMap(Int.init),
                let height = row["height"].flatMap(Int.init), let value = row["sha256|frames"], let last = row["delay_ms|loop"]
            else { continue }
            if frame == "file" {
                byPath[path] = AnimationReference(path: path, width: width, height: height, plays: Int(last) ?? -1, frames: [])
                order.append(path)
            } else {
                byPath[path]?.frames.append((value, Int(last) ?? -1))
            }
        }
        return order.compactMap { byPath[$0] }
    }()
}

@Suite struct AnimationReaderTests {
    @Test func theReferencesCoverGIFAndWebP() {
        let files = AnimationReference.all
        #expect(files.filter { $0.path.hasPrefix("gif/") }.count >= 15)
        #expect(files.filter { $0.path.hasPrefix("webp/") }.count >= 5)
        #expect(files.allSatisfy { $0.frames.count >= 2 })
    }

    @Test(arguments: AnimationReference.all)
    func everyFrameEqualsTheReference(_ reference: AnimationReference) throws {
        let reader = try AnimationReader(try Fixtures.data(reference.path))
        #expect(reader.info.width == reference.width)
        #expect(reader.info.height == reference.height)
        #expect(reader.info.frameCount == reference.frames.count)
        #expect(reader.info.plays == reference.plays)
        var index = 0
        while let frame = try reader.next() {
            try #require(index < reference.frames.count)
            #expect(Fixtures.sha256(frame.bitmap.pixels) == reference.frames[index].sha256, "frame \(index)")
            #expect(frame.duration == reference.frames[index].delay, "frame \(index)")
            index += 1
        }
        #expect(index == reference.frames.count)
    }

    @Test func aGIFOfMoreFramesThanTheLimitIsRefusedBeforeDecoding() throws {
        let data = try Fixtures.data("gif/generated/frames-2000.gif")
        #expect(throws: CodecError.tooLarge) { try AnimationReader(data, limits: .init(maxFrames: 1000)) }
        #expect(throws: CodecError.tooLarge) { try AnimationReader(data, limits: .init(maxTotalPixels: 100)) }
    }

    /// A GIF of `frames` frames of 1x1 on a `side` x `side` screen, each frame 1x1 at (0, 0).
    static func tinyFrames(_ frames: Int, screen side: UInt16 = 1) -> [UInt8] {
        var gif: [UInt8] = Array("GIF89a".utf8) + [UInt8(side & 0xff), UInt8(side >> 8), UInt8(side & 0xff), UInt8(side >> 8), 0x80, 0, 0]
        gif += [0, 0, 0, 255, 255, 255]  // a global table of two colours
        let frame: [UInt8] = [0x21, 0xF9, 4, 0, 1, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0]
        for _ in 0..<frames { gif += frame }
        return gif + [0x3B]
    }

    @Test func aGIFOf100000FramesIsRefusedByTheDefaultLimitsBeforeAnyCanvas() throws {
        let data = Self.tinyFrames(100_000)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: CodecError.tooLarge) { try AnimationReader(data) }
        #expect(clock.now - start < .seconds(5))
        // the same frames under the limit read, each a 1x1 canvas
        let small = try AnimationReader(Self.tinyFrames(3))
        #expect(small.info.frameCount == 3 && small.info.width == 1)
        while let frame = try small.next() { #expect(frame.bitmap.pixels.count == 4) }
    }

    @Test func aScreenOf65535PixelsASideCountsAsTheFramesCanvasAsInLibvips() throws {
        // libnsgif takes a screen wider than 2048 for the creator's and sizes the canvas by the
        // first frame; a frame that large itself is over the pixel budget (bomb-frame-65535.gif).
        let reader = try AnimationReader(Self.tinyFrames(2, screen: 65535))
        #expect(reader.info.width == 1 && reader.info.height == 1)
        #expect(throws: CodecError.tooLarge) { try AnimationReader(try Fixtures.data("gif/generated/bomb-frame-65535.gif")) }
    }

    @Test func aStillWebPIsNoAnimation() throws {
        let still = try Fixtures.data("webp/libwebp-test-data/alpha_filter_1.webp")
        #expect(throws: CodecError.unsupported) { try AnimationReader(still) }
    }
}
