import CAssetLottieRender
import Testing

/// rlottie's premultiplied ARGB32 made straight by the C shim's table: the same bytes as the
/// rounded division it replaced, for every alpha and channel value.
@Suite struct UnpremultiplyTests {
    @Test func theTableGivesTheRoundedDivisionForEveryAlphaAndChannel() {
        // pixel (a, c): ARGB32 in memory order B, G, R, A (little-endian words), channels c, c/2, 255-c
        var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
        for a in 0..<256 {
            for c in 0..<256 {
                let i = (a * 256 + c) * 4
                pixels[i] = UInt8(255 - c)
                pixels[i + 1] = UInt8(c / 2)
                pixels[i + 2] = UInt8(c)
                pixels[i + 3] = UInt8(a)
            }
        }
        pixels.withUnsafeMutableBufferPointer { alr_unpremultiply_argb32($0.baseAddress, 256 * 256) }
        func straight(_ value: Int, _ alpha: Int) -> UInt8 {
            if alpha == 0 { return 0 }
            if alpha == 255 { return UInt8(value) }
            return UInt8(min(255, (value * 255 + alpha / 2) / alpha))
        }
        var wrong = 0
        for a in 0..<256 {
            for c in 0..<256 {
                let i = (a * 256 + c) * 4
                let expected = [straight(c, a), straight(c / 2, a), straight(255 - c, a), UInt8(a)]
                if Array(pixels[i..<i + 4]) != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }
}

/// The blocks of 8 the shim takes whole (all clear, all opaque) and the ones it takes pixel by
/// pixel, mixed, with a tail shorter than a block: the same bytes as the per-pixel rule.
@Suite struct UnpremultiplyBlockTests {
    @Test func blocksOfEveryKindGiveThePixelByPixelResult() {
        var generator = SystemRandomNumberGenerator()
        let count = 8 * 64 + 5
        var pixels = [UInt8](repeating: 0, count: count * 4)
        for block in 0..<(count + 7) / 8 {
            let kind = block % 5  // clear, opaque, mixed, clear with one opaque, opaque with one half
            for k in 0..<8 where block * 8 + k < count {
                let i = (block * 8 + k) * 4
                var a: UInt8
                switch kind {
                case 0: a = 0
                case 1: a = 255
                case 2: a = UInt8.random(in: 0...255, using: &generator)
                case 3: a = k == 7 ? 255 : 0
                default: a = k == 3 ? 128 : 255
                }
                pixels[i + 3] = a
                if a > 0 {
                    for c in 0..<3 { pixels[i + c] = UInt8.random(in: 0...a, using: &generator) }
                }
            }
        }
        let before = pixels
        pixels.withUnsafeMutableBufferPointer { alr_unpremultiply_argb32($0.baseAddress, count) }
        var wrong = 0
        for p in 0..<count {
            let i = p * 4
            let a = Int(before[i + 3])
            func straight(_ value: UInt8) -> UInt8 {
                if a == 0 { return 0 }
                return UInt8(min(255, (Int(value) * 255 + a / 2) / a))
            }
            let expected = [straight(before[i + 2]), straight(before[i + 1]), straight(before[i]), UInt8(a)]
            if Array(pixels[i..<i + 4]) != expected { wrong += 1 }
        }
        #expect(wrong == 0)
    }
}
