import AssetCodecs
@testable import AssetImaging
import Foundation
import Testing

@Suite struct EncoderAndResampleTests {
    /// A half-transparent image: opaque red on the left, fully transparent green on the right,
    /// a soft alpha ramp at the top.
    static let halfTransparent = ImagingFixtures.bitmap(width: 64, height: 48) { x, y in
        if y < 8 { return SIMD4(UInt8(x * 4), 0, 255, UInt8(y * 32)) }
        return x < 32 ? SIMD4(255, 0, 0, 255) : SIMD4(0, 255, 0, 0)
    }

    @Test(arguments: [OutputFormat.png, .webp, .avif])
    func alphaSurvivesFormatsThatHaveIt(_ format: OutputFormat) throws {
        var options = ImageEncoder.Options()
        options.lossless = format != .png
        options.quality = 100
        let bytes = try ImageEncoder().encode(Self.halfTransparent, as: format, options: options)
        #expect(ImageFormat(sniffing: bytes) == (format == .png ? .png : format == .webp ? .webp : .avif))
        let decoded = try ImagingFixtures.decode(bytes)
        #expect(decoded.rgba(x: 10, y: 20).w == 255)
        #expect(decoded.rgba(x: 50, y: 20).w == 0)
        #expect(abs(Int(decoded.rgba(x: 10, y: 4).w) - 128) <= 2)
    }

    @Test func jpegFlattensAlphaOntoTheBackground() throws {
        var options = ImageEncoder.Options(quality: 95, chromaSubsampling: false)
        options.background = RGBColor(red: 0, green: 0, blue: 255)
        let decoded = try ImagingFixtures.decode(try ImageEncoder().encode(Self.halfTransparent, as: .jpeg, options: options))
        let left = decoded.rgba(x: 10, y: 30), right = decoded.rgba(x: 54, y: 30)
        #expect(left.x > 240 && left.z < 15)
        #expect(right.z > 240 && right.y < 15 && right.x < 15)
    }

    @Test func pngPicksTheSmallestExactColourType() throws {
        // Two colours: a 1-bit palette, far smaller than RGBA; the pixels survive exactly.
        let twoColours = ImagingFixtures.bitmap(width: 100, height: 100) { x, _ in x % 2 == 0 ? SIMD4(10, 20, 30, 255) : SIMD4(200, 100, 0, 255) }
        let indexed = try ImageEncoder().encode(twoColours, as: .png)
        var rgba = ImageEncoder.Options()
        rgba.palette = false
        let full = try ImageEncoder().encode(twoColours, as: .png, options: rgba)
        #expect(indexed.count < full.count)
        #expect(try ImageDecoder().header(of: indexed).colorSpace == .palette)
        #expect(ImagingFixtures.difference(try ImagingFixtures.decode(indexed), twoColours).max == 0)
        #expect(ImagingFixtures.difference(try ImagingFixtures.decode(full), twoColours).max == 0)
    }

    @Test(arguments: [ResampleKernel.lanczos3, .lanczos2, .cubic, .mitchell, .linear, .nearest])
    func aConstantImageStaysConstantToItsEdges(_ kernel: ResampleKernel) throws {
        let flat = ImagingFixtures.bitmap(width: 97, height: 61) { _, _ in SIMD4(37, 140, 222, 255) }
        let png = try ImageEncoder().encode(flat, as: .png)
        for (w, h) in [(13, 9), (200, 120), (97, 7)] {
            var transform = ImageTransform(width: w, height: h, fit: .fill, enlarge: true, format: .format(.png))
            transform.kernel = kernel
            let out = try ImagingFixtures.decode(try ImageProcessor().process(png, transform: transform).bytes)
            #expect((out.width, out.height) == (w, h))
            let constant = ImagingFixtures.bitmap(width: w, height: h) { _, _ in SIMD4(37, 140, 222, 255) }
            #expect(ImagingFixtures.difference(out, constant).max == 0)
        }
    }

    @Test func transparentPixelsDoNotBleedTheirColour() throws {
        let png = try ImageEncoder().encode(Self.halfTransparent, as: .png)
        let out = try ImagingFixtures.decode(try ImageProcessor().process(png, transform: ImageTransform(width: 16, format: .format(.png))).bytes)
        for y in 3..<out.height {
            for x in 0..<out.width where out.rgba(x: x, y: y).w > 0 {
                #expect(out.rgba(x: x, y: y).y == 0, "green from transparent pixels bled into (\(x), \(y))")
            }
        }
    }

    /// Our Lanczos-3 against a direct evaluation of the same filter in Double, written here: a
    /// reduction, an enlargement, and one of each at once.
    @Test(arguments: [(40, 30, 13, 11), (13, 11, 40, 30), (40, 11, 13, 30)])
    func lanczos3MatchesAFloatingPointReference(_ sizes: (Int, Int, Int, Int)) throws {
        let (sw, sh, dw, dh) = sizes
        var generator = SystemRandomNumberGenerator()
        let source = ImagingFixtures.bitmap(width: sw, height: sh) { _, _ in
            SIMD4(UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator), 255)
        }
        let png = try ImageEncoder().encode(source, as: .png, options: .init(palette: false))
        let out = try ImagingFixtures.decode(try ImageProcessor().process(
            png, transform: ImageTransform(width: dw, height: dh, fit: .fill, enlarge: true, format: .format(.png))).bytes)
        #expect((out.width, out.height) == (dw, dh))
        func weights(_ src: Int, _ dst: Int) -> [[(Int, Double)]] {
            let scale = Double(dst) / Double(src), stretch = max(1, 1 / scale), support = 3 * stretch
            return (0..<dst).map { i in
                let center = (Double(i) + 0.5) / scale
                var taps: [(Int, Double)] = []
                for j in max(0, Int((center - support).rounded(.down)))..<min(src, Int((center + support).rounded(.up))) {
                    let x = (Double(j) + 0.5 - center) / stretch
                    func sinc(_ v: Double) -> Double { v == 0 ? 1 : sin(Double.pi * v) / (Double.pi * v) }
                    taps.append((j, abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0))
                }
                let sum = taps.reduce(0) { $0 + $1.1 }
                return taps.map { ($0.0, $0.1 / sum) }
            }
        }
        let wx = weights(sw, dw), wy = weights(sh, dh)
        var worst = 0.0
        for y in 0..<dh {
            for x in 0..<dw {
                for c in 0..<3 {
                    var value = 0.0
                    for (sy, ky) in wy[y] {
                        for (sx, kx) in wx[x] { value += ky * kx * Double(source.pixels[(sy * sw + sx) * 4 + c]) }
                    }
                    let expected = min(255, max(0, value))
                    worst = max(worst, abs(expected - Double(out.pixels[(y * dw + x) * 4 + c])))
                }
            }
        }
        #expect(worst <= 1.0, "largest difference \(worst)")
    }
}

@Suite struct OverlappedDecodingTests {
    /// A 1200 x 900 JPEG (above the megapixel where decoding moves to a second thread).
    static let large: [UInt8] = {
        let bitmap = ImagingFixtures.bitmap(width: 1200, height: 900) { x, y in
            SIMD4(UInt8((x * 7 + y) & 0xff), UInt8((x ^ y) & 0xff), UInt8((y * 3) & 0xff), 255)
        }
        return try! ImageEncoder().encode(bitmap, as: .jpeg, options: .init(quality: 90))
    }()

    /// Resized to 1000 wide: no DCT scale leaves the kernel its margin, so the 1.08 MP source decodes
    /// at full size, past the megapixel where `.always` moves decoding to a second thread.
    func process(_ data: [UInt8], overlapped: Bool) throws -> [UInt8] {
        var configuration = ImageProcessor.Configuration()
        configuration.overlapDecoding = overlapped ? .always : .off
        return try ImageProcessor(configuration: configuration)
            .process(data, transform: ImageTransform(width: 1000, format: .format(.png))).bytes
    }

    @Test func aSecondDecodingThreadGivesTheSameBytes() throws {
        let before = BandPipeline.threadsStarted.load(ordering: .relaxed)
        let threaded = try process(Self.large, overlapped: true)
        #expect(BandPipeline.threadsStarted.load(ordering: .relaxed) > before, "the threaded path did not run")
        let inline = try process(Self.large, overlapped: false)
        #expect(threaded == inline)
        let plan = try ImageProcessor().plan(for: Self.large, transform: ImageTransform(width: 1000, format: .format(.png)))
        #expect(plan.decodedWidth * plan.decodedHeight >= 1 << 20)
    }

    @Test func aFailureOnTheDecodingThreadReachesTheCaller() throws {
        // Cut in the middle of the scan: libjpeg fills the rest with warnings, the same either way.
        let cut = Array(Self.large.prefix(Self.large.count / 2))
        #expect(try process(cut, overlapped: true) == process(cut, overlapped: false))
        // Garbage in the middle of the scan: the same typed outcome on both paths.
        var broken = Self.large
        for index in stride(from: broken.count / 3, to: broken.count / 3 + 4000, by: 7) { broken[index] = 0xFF }
        let threaded = Result { try process(broken, overlapped: true) }
        let inline = Result { try process(broken, overlapped: false) }
        switch (threaded, inline) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect((a as? CodecError) == (b as? CodecError) && a is CodecError)
        default: Issue.record("the two paths disagree: \(threaded) / \(inline)")
        }
    }
}
