import AssetTestSupport
@_spi(Fuzzing) import AssetCodecs
import Foundation
import Testing

@Suite("Fuzzing regressions: the decoders")
struct FuzzRegressionTests {
    /// What the codecs fuzzer found, through the header, a full and a downscaled decode: a
    /// CodecError or a bitmap that matches its header, never a crash.
    @Test(arguments: FuzzInputs.files("codecs"))
    func decode(_ path: String) throws {
        let bytes = try FuzzInputs.bytes(path)
        let decoder = ImageDecoder(configuration: .init(pixelBudget: 4_000_000, maxInputBytes: 1 << 20))
        guard let header = try? bytes.withUnsafeBytes({ try decoder.header(of: $0) }) else { return }
        if let decoded = try? bytes.withUnsafeBytes({ try decoder.decode($0) }) {
            #expect(decoded.bitmap.width == header.width && decoded.bitmap.height == header.height)
        }
        var small = decoder.configuration
        small.maxDimension = 16
        _ = try? bytes.withUnsafeBytes { try ImageDecoder(configuration: small).decode($0) }
    }

    /// What the per-format fuzzers kept (their seeds and any crash input, `Fixtures/fuzz/<format>/`),
    /// through that format's decoder as the fuzzer drives it, whatever the signature says: a typed
    /// error or a decode within the budget, never a crash. (A library's own crash inputs stay in
    /// `library-crashes/`, which is not replayed in process.)
    @Test(arguments: ["webp", "avif", "heif", "gif", "tiff", "svg", "jxl"])
    func perFormatInputs(_ target: String) throws {
        let format = try #require(CodecFuzzing.format(named: target))
        for path in FuzzInputs.files(target) {
            let bytes = try FuzzInputs.bytes(path)
            bytes.withUnsafeBytes { CodecFuzzing.decode($0, as: format) }
        }
    }
}
