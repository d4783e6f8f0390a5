import Foundation
import Testing

import AssetCodecs

@Suite struct DownscaleTests {
    @Test(arguments: [
        ("jpeg/libjpeg-turbo/testorig.jpg", 100, 100, 66),  // 227x149, DCT 1/2 then area resize
        ("jpeg/libjpeg-turbo/testimgp.jpg", 29, 29, 19),  // DCT 1/8 lands exactly
        ("jpeg/jpeg-decoder-reftest/ycck.jpg", 200, 200, 133),  // 500x333 CMYK
        ("png/pngsuite/basi2c08.png", 10, 10, 10),
        ("png/pngsuite/basi6a16.png", 7, 7, 7),
        ("jpeg/libjpeg-turbo/testorig.jpg", 1, 1, 1),
        ("jpeg/libjpeg-turbo/testorig.jpg", 500, 227, 149),  // never upscaled
    ])
    func maxDimensionGivesTheExpectedSize(_ path: String, _ maxDimension: Int, _ width: Int, _ height: Int) throws {
        let decoder = ImageDecoder(configuration: .init(maxDimension: maxDimension))
        let data = try Fixtures.data(path)
        let decoded = try decoder.decode(data)
        #expect(decoded.bitmap.width == width && decoded.bitmap.height == height)
        #expect(decoded.bitmap.pixels.count == width * height * 4)
        let size = decoder.outputSize(for: try decoder.header(of: data))
        #expect(size.width == width && size.height == height)
    }

    /// Exact 2x2 area average: alpha is the mean alpha, colour the alpha-weighted mean colour,
    /// both rounded half up.
    static func halve(_ bitmap: Bitmap) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<(bitmap.height / 2) {
            for x in 0..<(bitmap.width / 2) {
                let quad = [bitmap.rgba(x: 2 * x, y: 2 * y), bitmap.rgba(x: 2 * x + 1, y: 2 * y),
                            bitmap.rgba(x: 2 * x, y: 2 * y + 1), bitmap.rgba(x: 2 * x + 1, y: 2 * y + 1)]
                let alphaSum = quad.reduce(0) { $0 + Int($1[3]) }
                var pixel: [UInt8] = []
                for c in 0..<3 {
                    let weighted = quad.reduce(0) { $0 + Int($1[c]) * Int($1[3]) }
                    pixel.append(alphaSum == 0 ? 0 : UInt8((2 * weighted + alphaSum) / (2 * alphaSum)))
                }
                pixel.append(UInt8((alphaSum + 2) / 4))
                out += pixel
            }
        }
        return out
    }

    @Test(arguments: ["png/pngsuite/basi2c08.png", "png/pngsuite/basn6a08.png", "png/pngsuite/basi4a08.png",
                      "png/pngsuite/tbrn2c08.png"])
    func halvingIsTheExactAreaAverage(_ path: String) throws {
        let data = try Fixtures.data(path)
        let full = try ImageDecoder().decode(data).bitmap
        let half = try ImageDecoder(configuration: .init(maxDimension: full.width / 2)).decode(data).bitmap
        #expect(half.width == full.width / 2 && half.height == full.height / 2)
        #expect(half.pixels == Self.halve(full))
    }

    @Test func aUniformImageStaysUniformAtAnyScale() throws {
        // A 256x256 opaque 16-bit gray ramp squeezed to 3x3: every output is the mean of its area.
        let data = try Fixtures.data("png/generated/gray-16-every-value.png")
        let small = try ImageDecoder(configuration: .init(maxDimension: 3)).decode(data).bitmap
        #expect(small.width == 3 && small.height == 3)
        for y in 0..<3 {
            for x in 0..<3 {
                let p = small.rgba(x: x, y: y)
                #expect(p[0] == p[1] && p[1] == p[2] && p[3] == 255)
            }
        }
        // Rows darken to brighten downwards: the ramp rises by 256 per row.
        #expect(small.rgba(x: 0, y: 0)[0] < small.rgba(x: 0, y: 1)[0])
        #expect(small.rgba(x: 0, y: 1)[0] < small.rgba(x: 0, y: 2)[0])
    }
}
