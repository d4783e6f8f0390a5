import Foundation
import Testing

import AssetCodecs

@Suite struct HeaderTests {
    @Test func pngHeaderFacts() throws {
        let header = try ImageDecoder().header(of: Fixtures.data("png/pngsuite/basi3p02.png"))
        #expect(header.format == .png)
        #expect(header.width == 32 && header.height == 32)
        #expect(header.bitDepth == 2)
        #expect(header.colorSpace == .palette)
        #expect(header.channels == 1)
        #expect(header.isInterlaced)
        #expect(header.orientation == nil)

        let alpha = try ImageDecoder().header(of: Fixtures.data("png/pngsuite/basn6a16.png"))
        #expect(alpha.colorSpace == .rgba && alpha.bitDepth == 16 && alpha.hasAlpha && !alpha.isInterlaced)
    }

    @Test func jpegHeaderFacts() throws {
        let header = try ImageDecoder().header(of: Fixtures.data("jpeg/libjpeg-turbo/testimgp.jpg"))
        #expect(header.format == .jpeg)
        #expect(header.width == 227 && header.height == 149)
        #expect(header.channels == 3 && header.bitDepth == 8)
        #expect(header.colorSpace == .yCbCr)
        #expect(header.isInterlaced)

        let cmyk = try ImageDecoder().header(of: Fixtures.data("jpeg/jpeg-decoder-reftest/ycck.jpg"))
        #expect(cmyk.colorSpace == .ycck && cmyk.channels == 4)
        let gray = try ImageDecoder().header(of: Fixtures.data("jpeg/jpeg-decoder-reftest/mozilla/jpg-gray.jpg"))
        #expect(gray.colorSpace == .gray && gray.channels == 1)
    }

    /// An APP1 EXIF segment with IFD0 holding only Orientation = `value`.
    static func exifSegment(orientation value: UInt16, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
        var tiff: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        tiff += u16(42) + u32(8) + u16(1)
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(value) + [0, 0]
        tiff += u32(0)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    @Test(arguments: [(UInt16(6), true), (UInt16(8), false), (UInt16(3), true)])
    func jpegExifOrientationIsReported(_ value: UInt16, _ bigEndian: Bool) throws {
        let original = [UInt8](try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg"))
        let data = Array(original[0..<2]) + Self.exifSegment(orientation: value, bigEndian: bigEndian) + original[2...]
        let header = try ImageDecoder().header(of: data)
        #expect(header.orientation == Int(value))
        // The pixels are not rotated: the decode equals that of the file without EXIF.
        let withExif = try ImageDecoder().decode(data)
        let without = try ImageDecoder().decode(original)
        #expect(withExif.bitmap == without.bitmap)
        #expect(withExif.header.orientation == Int(value))
    }

    @Test func anOutOfRangeOrientationIsIgnored() throws {
        let original = [UInt8](try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg"))
        let data = Array(original[0..<2]) + Self.exifSegment(orientation: 9, bigEndian: false) + original[2...]
        #expect(try ImageDecoder().header(of: data).orientation == nil)
    }

    @Test func pngExifOrientationIsReported() throws {
        let original = [UInt8](try Fixtures.data("png/pngsuite/basn0g08.png"))
        // eXIf holds the TIFF structure itself (the JPEG APP1 payload without "Exif\0\0").
        let tiff = Array(Self.exifSegment(orientation: 6, bigEndian: true).dropFirst(10))
        let ihdrEnd = 8 + 25
        let data = Array(original[..<ihdrEnd]) + PNGChunks.chunk("eXIf", tiff) + original[ihdrEnd...]
        let header = try ImageDecoder().header(of: data)
        #expect(header.orientation == 6)
        #expect(try ImageDecoder().decode(data).bitmap == ImageDecoder().decode(original).bitmap)
    }

    @Test func headerDoesNotNeedThePixelData() throws {
        let data = [UInt8](try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg"))
        // Everything up to the first scan's header is enough.
        let sos = try #require((0..<(data.count - 1)).first { data[$0] == 0xFF && data[$0 + 1] == 0xDA })
        let header = try ImageDecoder().header(of: Array(data[..<(sos + 14)]))
        #expect(header.width == 227 && header.height == 149)
    }
}
