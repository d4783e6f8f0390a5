import AssetCodecs

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Chooses the window of a crop by what the image shows, along the one axis the crop cuts (a
/// `cover` crop cuts one side only). Each candidate window is scored, in steps of at most 1/32 of
/// the free range:
/// - `entropy`: the Shannon entropy of the window's luma histogram (busy beats flat);
/// - `attention`: the sum of edge strength (luma Laplacian), colour saturation and skin-tone
///   likeness over the window, libvips's `attention` features without its blur.
enum SmartCrop {
    static func origin(in bitmap: Bitmap, width: Int, height: Int, strategy: ImageTransform.Gravity) -> (x: Int, y: Int) {
        let horizontal = width < bitmap.width
        let range = horizontal ? bitmap.width - width : bitmap.height - height
        guard range > 0 else { return (0, 0) }
        let luma = lumaPlane(bitmap)
        let steps = min(range, 32)
        var best = (score: -Double.infinity, offset: range / 2)
        let attentionScores = strategy == .attention ? attentionProfile(bitmap, luma: luma, horizontal: horizontal) : []
        for step in 0...steps {
            let offset = range * step / steps
            let score: Double
            if strategy == .attention {
                let length = horizontal ? width : height
                score = attentionScores[offset..<(offset + length)].reduce(0, +)
            } else {
                score = entropy(luma, width: bitmap.width, x: horizontal ? offset : 0, y: horizontal ? 0 : offset,
                                windowWidth: width, windowHeight: height)
            }
            if score > best.score { best = (score, offset) }
        }
        return horizontal ? (best.offset, 0) : (0, best.offset)
    }

    static func lumaPlane(_ bitmap: Bitmap) -> [UInt8] {
        var luma = [UInt8](repeating: 0, count: bitmap.width * bitmap.height)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let p = y * bitmap.bytesPerRow + x * 4
                    let value = (299 * Int(pixels[p]) + 587 * Int(pixels[p + 1]) + 114 * Int(pixels[p + 2])) / 1000
                    luma[y * bitmap.width + x] = UInt8(value * Int(pixels[p + 3]) / 255)
                }
            }
        }
        return luma
    }

    static func entropy(_ luma: [UInt8], width: Int, x: Int, y: Int, windowWidth: Int, windowHeight: Int) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        for row in y..<(y + windowHeight) {
            let start = row * width + x
            for index in start..<(start + windowWidth) { histogram[Int(luma[index])] += 1 }
        }
        let total = Double(windowWidth * windowHeight)
        return histogram.reduce(0.0) { sum, count in
            guard count > 0 else { return sum }
            let p = Double(count) / total
            return sum - p * log2(p)
        }
    }

    /// The attention score of each column (horizontal) or row (vertical).
    static func attentionProfile(_ bitmap: Bitmap, luma: [UInt8], horizontal: Bool) -> [Double] {
        let (w, h) = (bitmap.width, bitmap.height)
        var profile = [Double](repeating: 0, count: horizontal ? w : h)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<h {
                for x in 0..<w {
                    let center = Int(luma[y * w + x])
                    var edge = 0
                    if x > 0, x < w - 1, y > 0, y < h - 1 {
                        edge = abs(4 * center - Int(luma[y * w + x - 1]) - Int(luma[y * w + x + 1])
                            - Int(luma[(y - 1) * w + x]) - Int(luma[(y + 1) * w + x]))
                    }
                    let p = y * bitmap.bytesPerRow + x * 4
                    let (r, g, b) = (Int(pixels[p]), Int(pixels[p + 1]), Int(pixels[p + 2]))
                    let saturation = max(r, g, b) - min(r, g, b)
                    // Skin: red above green above blue, in the usual ratios.
                    let skin = r > 95 && g > 40 && b > 20 && r > g && r > b && r - min(g, b) > 15 && abs(r - g) > 15 ? 128 : 0
                    let score = Double(edge + saturation / 2 + skin) * Double(pixels[p + 3]) / 255
                    profile[horizontal ? x : y] += score
                }
            }
        }
        return profile
    }
}
