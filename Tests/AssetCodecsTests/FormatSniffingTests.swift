import Testing

import AssetCodecs

@Suite struct FormatSniffingTests {
    static let samples: [(bytes: [UInt8], format: ImageFormat?)] = [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg),
        (Array("GIF89a".utf8) + [1, 0], .gif),
        (Array("GIF87a".utf8), .gif),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
        (Array("BM".utf8) + [0, 0, 0, 0], .bmp),
        ([0x49, 0x49, 0x2A, 0x00], .tiff),
        ([0, 0, 0, 0x1C] + Array("ftypavif".utf8), .avif),
        ([0, 0, 0, 0x18] + Array("ftypheic".utf8), .heif),
        ([0xFF, 0x0A, 0x00], .jpegXL),
        ([0x00, 0x00, 0x01, 0x00, 0x01, 0x00], .ico),
        (Array("<svg xmlns".utf8), nil),
        ([0xFF, 0xD8], .jpeg),
        ([0xFF, 0x00, 0xD8], nil),
        ([], nil),
    ]

    @Test func recognisesFormatsFromTheirFirstBytes() {
        for sample in Self.samples {
            #expect(ImageFormat(sniffing: sample.bytes) == sample.format, "\(sample.bytes)")
        }
    }

    @Test func formatsOtherThanPNGAndJPEGAreUnsupported() {
        for sample in Self.samples where sample.format != .png && sample.format != .jpeg {
            #expect(throws: CodecError.unsupported) { try ImageDecoder().decode(sample.bytes) }
        }
    }

    @Test func onlyPNGAndJPEGAreDecodable() {
        #expect(ImageFormat.allCases.filter(\.isDecodable) == [.png, .jpeg])
    }
}
