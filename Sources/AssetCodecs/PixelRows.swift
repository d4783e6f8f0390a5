/// Conversions between row layouts.
enum PixelRows {
    /// Copies `pixels` RGBA pixels at `from` to RGB at `to`, dropping alpha.
    static func dropAlpha(from: UnsafeRawPointer, to: UnsafeMutableRawPointer, pixels: Int) {
        let source = from.assumingMemoryBound(to: UInt8.self)
        let destination = to.assumingMemoryBound(to: UInt8.self)
        for x in 0..<pixels {
            destination[x * 3] = source[x * 4]
            destination[x * 3 + 1] = source[x * 4 + 1]
            destination[x * 3 + 2] = source[x * 4 + 2]
        }
    }
}
