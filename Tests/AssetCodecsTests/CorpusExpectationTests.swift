import Foundation
import Testing

import AssetCodecs

/// The corpus's `expect` column: failures are typed, unsupported files say so.
@Suite struct CorpusExpectationTests {
    static let mustFail = CorpusFile.expecting { $0 == "must-fail" }
    static let unsupported = CorpusFile.expecting { $0.hasPrefix("unsupported") }

    @Test(arguments: mustFail)
    func mustFailFilesThrowATypedError(_ file: CorpusFile) throws {
        let data = try Fixtures.data(file.path)
        do {
            let decoded = try ImageDecoder().decode(data)
            Issue.record("decoded \(decoded.bitmap.width)x\(decoded.bitmap.height) with warnings \(decoded.warnings)")
        } catch let error as CodecError {
            #expect(!error.message.isEmpty)
            #expect([CodecError.corrupt, .truncated, .unsupported, .tooLarge].contains(error))
        }
    }

    @Test(arguments: unsupported)
    func unsupportedFilesSaySo(_ file: CorpusFile) throws {
        let data = try Fixtures.data(file.path)
        let error = #expect(throws: CodecError.self) { try ImageDecoder().decode(data) }
        #expect(error == .unsupported)
        #expect(error?.message.contains("Unsupported JPEG") == true)
    }

    @Test func aJpgFileHoldingPNGBytesIsSniffedAndDecodedAsPNG() throws {
        let data = try Fixtures.data("jpeg/jpeg-decoder-reftest/mozilla/jpg-size-6x6.jpg")
        #expect(ImageFormat(sniffing: data) == .png)
        let decoded = try ImageDecoder().decode(data)
        #expect(decoded.header.format == .png)
        #expect(decoded.bitmap.width == 6 && decoded.bitmap.height == 6)
    }

    @Test func bytesOfNoKnownFormatAreUnsupported() throws {
        let data = try Fixtures.data("jpeg/jpeg-decoder-crashtest/imagetestsuite/f012a4321f00f12af6b1eee7580ffb9c.jpg")
        #expect(ImageFormat(sniffing: data) == nil)
        #expect(throws: CodecError.unsupported) { try ImageDecoder().decode(data) }
    }

    @Test func twelveBitJpegIsUnsupported() throws {
        let data = try Fixtures.data("jpeg/libjpeg-turbo/testorig12.jpg")
        #expect(throws: CodecError.unsupported) { try ImageDecoder().header(of: data) }
    }
}
