import AssetTestSupport
@_spi(Fuzzing) import AssetImaging
import Foundation
import Testing

@Suite("Fuzzing regressions: the transform")
struct FuzzRegressionTests {
    /// What the codecs fuzzer found, through the transform it runs on every input (the fuzzer's
    /// own entry, `ImagingFuzzing.transform`): a typed error or an output, never a crash.
    @Test(arguments: FuzzInputs.files("codecs"))
    func transform(_ path: String) throws {
        let bytes = try FuzzInputs.bytes(path)
        bytes.withUnsafeBytes { ImagingFuzzing.transform($0) }
    }
}
