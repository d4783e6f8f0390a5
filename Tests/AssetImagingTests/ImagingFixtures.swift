import AssetCodecs
import CAVIF
import CWebP
import Foundation
import Testing

/// Access to `Fixtures/imaging/` (see its SOURCES.md) and decoders for the outputs.
enum ImagingFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // AssetImagingTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    /// Decodes PNG or JPEG with our decoder, WebP with libwebp, AVIF with libavif (dav1d or aom).
    static func decode(_ bytes: [UInt8]) throws -> Bitmap {
        switch ImageFormat(sniffing: bytes) {
        case .webp:
            var width: Int32 = 0, height: Int32 = 0
            guard let pixels = bytes.withUnsafeBufferPointer({ WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) }) else {
                throw DecodeFailure(message: "libwebp cannot decode the output")
            }
            defer { WebPFree(pixels) }
            let count = Int(width) * Int(height) * 4
            return Bitmap(width: Int(width), height: Int(height), bytesPerRow: Int(width) * 4,
                          pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
        case .avif:
            guard let decoder = avifDecoderCreate() else { throw DecodeFailure(message: "no AVIF decoder") }
            defer { avifDecoderDestroy(decoder) }
            let image = avifImageCreateEmpty()!
            defer { avifImageDestroy(image) }
            let result = bytes.withUnsafeBufferPointer { avifDecoderReadMemory(decoder, image, $0.baseAddress, $0.count) }
            guard result == AVIF_RESULT_OK else { throw DecodeFailure(message: "libavif: \(String(cString: avifResultToString(result)))") }
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            avifRGBImageAllocatePixels(&rgb)
            defer { avifRGBImageFreePixels(&rgb) }
            guard avifImageYUVToRGB(image, &rgb) == AVIF_RESULT_OK else { throw DecodeFailure(message: "libavif cannot convert") }
            let (width, height) = (Int(image.pointee.width), Int(image.pointee.height))
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for row in 0..<height {
                for column in 0..<(width * 4) { pixels[row * width * 4 + column] = rgb.pixels[row * Int(rgb.rowBytes) + column] }
            }
            return Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: pixels)
        default:
            return try ImageDecoder().decode(bytes).bitmap
        }
    }

    struct DecodeFailure: Error {
        var message: String
    }

    /// The largest and the mean absolute difference of two bitmaps' RGB (and alpha when `alpha`).
    static func difference(_ a: Bitmap, _ b: Bitmap, alpha: Bool = true) -> (max: Int, mean: Double) {
        precondition(a.width == b.width && a.height == b.height, "sizes differ")
        var largest = 0, total = 0, count = 0
        for index in 0..<(a.width * a.height) {
            for channel in 0..<(alpha ? 4 : 3) {
                let d = abs(Int(a.pixels[index * 4 + channel]) - Int(b.pixels[index * 4 + channel]))
                largest = max(largest, d)
                total += d
                count += 1
            }
        }
        return (largest, Double(total) / Double(max(1, count)))
    }

    /// A bitmap whose pixel (x, y) is `pixel(x, y)`.
    static func bitmap(width: Int, height: Int, _ pixel: (Int, Int) -> SIMD4<UInt8>) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                let o = (y * width + x) * 4
                pixels[o] = p.x
                pixels[o + 1] = p.y
                pixels[o + 2] = p.z
                pixels[o + 3] = p.w
            }
        }
        return Bitmap(width: width, height: height, bytesPerRow: width * 4, pixels: pixels)
    }
}
