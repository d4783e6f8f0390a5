/// Decoded pixels: rows of `bytesPerRow` bytes, `height` of them, in `pixelFormat`.
///
/// A value type with copy-on-write storage; its memory cost is its byte count.
public struct Bitmap: Sendable, Hashable {
    /// How one pixel is laid out.
    public enum PixelFormat: Sendable, Hashable {
        /// 8-bit red, green, blue, alpha, in that byte order, straight (not premultiplied) alpha.
        case rgba8

        /// Bytes per pixel.
        public var bytesPerPixel: Int {
            switch self {
            case .rgba8: 4
            }
        }
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next: at least
    /// `width * pixelFormat.bytesPerPixel`.
    ///
    /// The bitmaps ``ImageDecoder`` makes have no padding: `width * 4`.
    public let bytesPerRow: Int
    /// How each pixel is laid out.
    public let pixelFormat: PixelFormat
    /// The pixel bytes, `bytesPerRow * height` of them.
    public let pixels: [UInt8]

    /// Creates a bitmap over `pixels`; the sizes must agree (a programming error otherwise).
    public init(width: Int, height: Int, bytesPerRow: Int, pixelFormat: PixelFormat = .rgba8, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "negative bitmap size")
        precondition(bytesPerRow >= width * pixelFormat.bytesPerPixel, "bytesPerRow too small for the width")
        precondition(pixels.count == bytesPerRow * height, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixelFormat = pixelFormat
        self.pixels = pixels
    }

    /// Memory cost in bytes: the pixel storage's size.
    public var cost: Int { pixels.count }

    /// The pixel at (`x`, `y`) as red, green, blue, alpha.
    public func rgba(x: Int, y: Int) -> SIMD4<UInt8> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        let offset = y * bytesPerRow + x * pixelFormat.bytesPerPixel
        return SIMD4(pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }
}
