import Foundation
import Testing

import AssetCodecs

@Suite struct PixelFileFormatTests {
    @Test func formatsComeFromTheExtension() {
        #expect(PixelFileFormat(path: "/tmp/a.PAM") == .pam)
        #expect(PixelFileFormat(path: "out.ppm") == .ppm)
        #expect(PixelFileFormat(path: "dir.d/x.rgba") == .rgba)
        #expect(PixelFileFormat(path: "x.bmp") == nil)
        #expect(PixelFileFormat(path: "rgba") == nil)
        #expect(PixelFileFormat(path: ".ppm") == nil)
        #expect(PixelFileFormat(path: "a.ppm/") == nil)
        #expect(PixelFileFormat(rawValue: "ppm")?.layout == .rgb8)
        #expect(PixelFileFormat.pam.layout == .rgba8 && PixelFileFormat.rgba.layout == .rgba8)
    }

    @Test func headersAreNetpbms() {
        #expect(String(decoding: PixelFileFormat.pam.header(width: 3, height: 2), as: UTF8.self)
            == "P7\nWIDTH 3\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n")
        #expect(String(decoding: PixelFileFormat.ppm.header(width: 3, height: 2), as: UTF8.self) == "P6\n3 2\n255\n")
        #expect(PixelFileFormat.rgba.header(width: 3, height: 2).isEmpty)
        #expect(PixelFileFormat.ppm.byteCount(width: 3, height: 2) == 11 + 18)
        #expect(PixelFileFormat.pam.byteCount(width: 3, height: 2) == 65 + 24)
    }

    static let paths = ["png/pngsuite/basn6a08.png", "png/pngsuite/basi3p02.png", "jpeg/libjpeg-turbo/testorig.jpg"]

    @Test(arguments: paths)
    func bitmapsAndReadersWriteTheSameBytes(_ path: String) throws {
        let data = try Fixtures.data(path)
        let bitmap = try ImageDecoder().decode(data).bitmap
        for format in PixelFileFormat.allCases {
            let encoded = format.encode(bitmap)
            #expect(encoded.count == format.byteCount(width: bitmap.width, height: bitmap.height))
            let head = format.header(width: bitmap.width, height: bitmap.height)
            #expect(Array(encoded[..<head.count]) == head)
            let body = Array(encoded[head.count...])
            #expect(body == (format == .ppm ? RowReaderTests.dropAlpha(bitmap.pixels) : bitmap.pixels))

            for bandBytes in [1, 100, 1 << 20] {
                var written: [UInt8] = []
                var pieces = 0
                let reader = try ImageDecoder().rowReader(for: data, layout: format.layout)
                try format.write(reader, bandBytes: bandBytes) { written += $0; pieces += 1 }
                #expect(written == encoded)
                var fromBitmap: [UInt8] = []
                format.write(bitmap, bandBytes: bandBytes) { fromBitmap += $0 }
                #expect(fromBitmap == encoded)
                if bandBytes == 1 { #expect(pieces == bitmap.height + (head.isEmpty ? 0 : 1)) }
            }
        }
    }

    @Test func paddedBitmapRowsAreWrittenWithoutThePadding() {
        let pixels: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 0xEE, 0xEE, 9, 10, 11, 12, 13, 14, 15, 16, 0xEE, 0xEE]
        let bitmap = Bitmap(width: 2, height: 2, bytesPerRow: 10, pixels: pixels)
        #expect(PixelFileFormat.rgba.encode(bitmap) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        #expect(Array(PixelFileFormat.ppm.encode(bitmap).suffix(12)) == [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15])
    }

    @Test func aSinkErrorStopsTheWrite() throws {
        struct Full: Error {}
        let reader = try ImageDecoder().rowReader(for: try Fixtures.data("jpeg/libjpeg-turbo/testorig.jpg"))
        var calls = 0
        #expect(throws: Full.self) {
            try PixelFileFormat.rgba.write(reader, bandBytes: 1) { _ in
                calls += 1
                if calls == 3 { throw Full() }
            }
        }
        #expect(calls == 3 && reader.rowsRead == 3)
    }
}
