/// How an image is decoded to honour `maxDimension`: the DCT scale (JPEG), the size the library
/// gives (the target itself for a format that decodes at any size), and the final size after an
/// area-averaging resize.
struct DecodePlan: Sendable, Hashable {
    var scaleDenominator: Int
    var decodedWidth: Int
    var decodedHeight: Int
    var width: Int
    var height: Int

    var needsResize: Bool { decodedWidth != width || decodedHeight != height }

    init(header: ImageHeader, maxDimension: Int?) {
        let (w, h) = (header.width, header.height)
        var (targetWidth, targetHeight) = (w, h)
        if let maxDimension, maxDimension > 0, max(w, h) > maxDimension {
            let longest = Double(max(w, h))
            targetWidth = min(maxDimension, max(1, Int((Double(w) * Double(maxDimension) / longest).rounded())))
            targetHeight = min(maxDimension, max(1, Int((Double(h) * Double(maxDimension) / longest).rounded())))
        }
        var denominator = 1
        if header.format.loadScaling == .anySize {
            // Decoded (or drawn) at the target itself.
            self.scaleDenominator = 1
            (self.decodedWidth, self.decodedHeight) = (targetWidth, targetHeight)
            (self.width, self.height) = (targetWidth, targetHeight)
            return
        }
        if header.format.loadScaling == .dct {
            // The smallest DCT scale whose output still covers the target in both directions.
            for candidate in [8, 4, 2] where Self.scaled(w, candidate) >= targetWidth && Self.scaled(h, candidate) >= targetHeight {
                denominator = candidate
                break
            }
        }
        self.scaleDenominator = denominator
        self.decodedWidth = Self.scaled(w, denominator)
        self.decodedHeight = Self.scaled(h, denominator)
        self.width = targetWidth
        self.height = targetHeight
    }

    /// libjpeg-turbo's output size for a scale of 1/`denominator`: the size rounded up.
    static func scaled(_ size: Int, _ denominator: Int) -> Int {
        (size + denominator - 1) / denominator
    }
}
