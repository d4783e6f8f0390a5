import AssetTestSupport
import AssetCodecs
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
}
