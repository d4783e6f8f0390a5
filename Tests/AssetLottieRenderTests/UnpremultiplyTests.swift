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
