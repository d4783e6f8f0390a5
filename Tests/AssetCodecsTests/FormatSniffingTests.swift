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
        ([0x4D, 0x4D, 0x00, 0x2B], .tiff),
        ([0, 0, 0, 0x1C] + Array("ftypavif".utf8), .avif),
        ([0, 0, 0, 0x18] + Array("ftypheic".utf8), .heif),
        ([0xFF, 0x0A, 0x00], .jpegXL),
        ([0x00, 0x00, 0x01, 0x00, 0x01, 0x00], .ico),
        (Array("<svg xmlns".utf8), .svg),
        (Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- a logo -->\n<!DOCTYPE svg [<!ENTITY a \"b\">]>\n<svg:svg>".utf8), .svg),
        (Array("<?xml version=\"1.0\"?><html>".utf8), nil),
        (Array("<svgfoo>".utf8), nil),
        (Array("{\"v\": \"5.7\"}".utf8), nil),
        ([0xFF, 0xD8], .jpeg),
        ([0xFF, 0x00, 0xD8], nil),
        ([], nil),
    ]

    @Test func recognisesFormatsFromTheirFirstBytes() {
        for sample in Self.samples {
            #expect(ImageFormat(sniffing: sample.bytes) == sample.format, "\(sample.bytes)")
        }
    }

    /// A signature alone is no image: recognised formats fail in their own decoder with a typed
    /// error, BMP, ICO and unknown bytes as unsupported.
    @Test func signaturesAloneEndInATypedError() {
        for sample in Self.samples where sample.format != .png && sample.format != .jpeg {
            let error = #expect(throws: CodecError.self) { try ImageDecoder().decode(sample.bytes) }
            if sample.format == nil || sample.format == .bmp || sample.format == .ico {
                #expect(error == .unsupported)
            } else {
                #expect(error == .corrupt || error == .truncated, "\(sample.bytes): \(String(describing: error))")
            }
        }
    }

    @Test func everyFormatButBMPAndICODecodes() {
        #expect(ImageFormat.allCases.filter { !$0.isDecodable } == [.bmp, .ico])
    }

    @Test func gzipHoldingSVGIsSVGAndGzipHoldingJSONIsNot() throws {
        let svgz = try Fixtures.data("svg/generated/logo.svgz")
        #expect(ImageFormat(sniffing: svgz) == .svg)
        #expect(try ImageDecoder().header(of: svgz).format == .svg)
        // libvips's truncated.svgz is a whole gzip stream of JSON
        #expect(ImageFormat(sniffing: try Fixtures.data("svg/libvips/truncated.svgz")) == nil)
    }
}
