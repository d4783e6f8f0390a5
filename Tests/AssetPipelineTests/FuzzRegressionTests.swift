import AssetTestSupport
import Foundation
import Testing
@_spi(Fuzzing) import AssetPipeline

@Suite("Fuzzing regressions: Content-Range and prefetch lines")
struct FuzzRegressionTests {
    @Test(arguments: FuzzInputs.files("content-range"))
    func contentRange(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { PipelineFuzzing.contentRange($0) }
        #expect(broken == nil, "\(path)")
    }

    @Test(arguments: FuzzInputs.files("prefetch-line"))
    func prefetchLine(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { PipelineFuzzing.prefetchLine($0) }
        #expect(broken == nil, "\(path)")
    }
}
