import Foundation
import Testing

@testable import AssetCodecs

/// An 8-bit HEIF whose only transformation is one 'irot' (an iPhone's photo) is decoded as coded
/// and turned by the decoder itself (`apc_heif_copy8_turned`), not by libheif. The corpus' iPhone
/// photo (a grid, `irot` 3) is rewritten with each angle: every angle must give the unturned
/// decode turned that many quarters anti-clockwise, as libheif turns it. (The angle the file has
/// is also checked against heif-convert's pixels by FormatCorpusTests.)
@Suite struct HEIFRotationTests {
    static let path = "heif/pillow-heif/heif_other/arrow.heic"

    /// The file with its 'irot' angle set to `quarters`.
    static func turned(_ data: Data, quarters: UInt8) throws -> Data {
        var bytes = [UInt8](data)
        let marker = Array("irot".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == marker })
        bytes[at + 4] = quarters
        return Data(bytes)
    }

    @Test(arguments: [UInt8(1), 2, 3])
    func eachAngleIsTheUnturnedImageTurned(quarters: UInt8) throws {
        let data = try Fixtures.data(Self.path)
        let plain = try ImageDecoder().decode(Self.turned(data, quarters: 0)).bitmap
        let turned = try ImageDecoder().decode(Self.turned(data, quarters: quarters)).bitmap
        let (w, h) = (plain.width, plain.height)
        #expect(quarters % 2 == 1 ? (turned.width == h && turned.height == w) : (turned.width == w && turned.height == h))
        // (x, y) of the plain image lands at: one quarter (y, w-1-x); two (w-1-x, h-1-y); three (h-1-y, x).
        var checked = 0, wrong = 0
        for y in stride(from: 0, to: h, by: 7) {
            for x in stride(from: (y * 13) % 11, to: w, by: 11) {
                let (tx, ty) = switch quarters {
                case 1: (y, w - 1 - x)
                case 2: (w - 1 - x, h - 1 - y)
                default: (h - 1 - y, x)
                }
                let a = y * plain.bytesPerRow + x * 4, b = ty * turned.bytesPerRow + tx * 4
                if plain.pixels[a..<(a + 4)] != turned.pixels[b..<(b + 4)] { wrong += 1 }
                checked += 1
            }
        }
        #expect(checked > 150_000)
        #expect(wrong == 0)
        // the corners exactly
        for (x, y) in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)] {
            let (tx, ty) = switch quarters {
            case 1: (y, w - 1 - x)
            case 2: (w - 1 - x, h - 1 - y)
            default: (h - 1 - y, x)
            }
            let a = y * plain.bytesPerRow + x * 4, b = ty * turned.bytesPerRow + tx * 4
            #expect(plain.pixels[a..<(a + 4)] == turned.pixels[b..<(b + 4)])
        }
    }
}
