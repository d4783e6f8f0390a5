import AssetCodecs
import AssetImaging
import Foundation
import Testing

@Suite("Transforms of pixels already decoded or rendered")
struct BitmapSourceTests {
    /// 40x20: the left half opaque red, the right half half-transparent blue.
    static let halves: Bitmap = {
        var pixels: [UInt8] = []
        for _ in 0..<20 {
            for x in 0..<40 { pixels += x < 20 ? [255, 0, 0, 255] : [0, 0, 255, 128] }
        }
        return Bitmap(width: 40, height: 20, bytesPerRow: 160, pixels: pixels)
    }()

    static func pixel(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> [UInt8] {
        let offset = y * bitmap.bytesPerRow + x * 4
        return Array(bitmap.pixels[offset..<offset + 4])
    }

    @Test func aBitmapIsResizedCroppedAndEncoded() throws {
        let processor = ImageProcessor()
        // auto: PNG, alpha kept
        let png = try processor.process(bitmap: Self.halves, transform: ImageTransform(pairs: [("w", "20")]))
        #expect(png.format == .png && png.width == 20 && png.height == 10)
        let decoded = try ImageDecoder().decode(png.bytes).bitmap
        #expect(Self.pixel(decoded, 2, 5) == [255, 0, 0, 255])
        #expect(Self.pixel(decoded, 17, 5) == [0, 0, 255, 128])
        // cover to a square keeps the middle; JPEG flattens the blue over white
        let jpeg = try processor.process(bitmap: Self.halves, transform: ImageTransform(pairs: [("w", "10"), ("h", "10"), ("fit", "cover"), ("format", "jpeg")]))
        #expect(jpeg.format == .jpeg && jpeg.width == 10 && jpeg.height == 10)
        let flat = try ImageDecoder().decode(jpeg.bytes).bitmap
        let left = Self.pixel(flat, 1, 5), right = Self.pixel(flat, 8, 5)
        #expect(left[0] > 200 && left[2] < 60)
        #expect(right[2] > 200 && right[0] > 90 && right[0] < 170)  // half blue over white
    }

    @Test func aBitmapThatIsNotPackedRGBAIsRefused() {
        let padded = Bitmap(width: 2, height: 2, bytesPerRow: 12, pixels: [UInt8](repeating: 0, count: 24))
        #expect(throws: ImagingError.invalidTransform) {
            try ImageProcessor().process(bitmap: padded, transform: ImageTransform(pairs: [("w", "1")]))
        }
        #expect(throws: ImagingError.outputTooLarge) {
            try ImageProcessor().process(bitmap: Self.halves, transform: ImageTransform(pairs: [("w", "16000"), ("h", "16000"), ("fit", "fill"), ("enlarge", "1")]))
        }
    }
}
