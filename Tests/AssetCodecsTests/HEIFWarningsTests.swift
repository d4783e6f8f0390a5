import CAssetCodecs
import Foundation
import Testing

@testable import AssetCodecs

/// libheif 1.15's `heif_image_get_decoding_warnings` writes every warning from the index asked for
/// to the last, whatever the buffer's size, and writes each message into one string of the image's,
/// so that only the last message it wrote is still there. Our copy of the warnings read freed
/// messages (and overflowed its batch of 8 with more warnings): found by `scripts/fuzz avif-c` on
/// this input, whose decode ends with several libheif warnings. They are now reported once, as a
/// count and the last message.
@Suite struct HEIFWarningsTests {
    static let path = "fuzz/avif/crashes/crash-e8cbdefd1988cf93fed1921ef2fd4717a0a0ceb3"

    @Test func libheifsWarningsAreOneCountAndTheLastMessage() throws {
        let data = try Fixtures.data(Self.path)
        var limits = apc_limits()
        limits.max_pixels = 4_000_000
        var report = apc_report()
        var header = apc_header()
        let warnings: [String] = try data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            try #require(apc_avif_read_header(base, raw.count, &limits, -1, &header, &report) == APC_OK.rawValue)
            let (width, height) = (Int(header.width), Int(header.height))
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            _ = pixels.withUnsafeMutableBufferPointer { out in
                apc_avif_decode_rgba(base, raw.count, &limits, -1, header.width, header.height, out.baseAddress, width * 4, out.count, &report)
            }
            return CodecBridge.warnings(of: report)
        }
        let fromLibheif = warnings.filter { $0.hasPrefix("libheif: ") }
        #expect(fromLibheif.count == 1, "\(warnings)")
        let line = try #require(fromLibheif.first)
        // more than one warning: "libheif: N decoding warnings, the last: ..."
        let counted = try #require(line.firstMatch(of: /^libheif: (\d+) decoding warnings, the last: (.+)$/), "\(line)")
        #expect(Int(counted.1) ?? 0 > 1)
        #expect(counted.2.allSatisfy { $0.isASCII && !$0.isNewline })
    }
}
