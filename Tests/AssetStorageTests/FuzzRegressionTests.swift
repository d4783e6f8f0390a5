import AssetTestSupport
import Foundation
import Testing
@_spi(Fuzzing) import AssetStorage

@Suite("Fuzzing regressions: chunk records")
struct FuzzRegressionTests {
    @Test(arguments: FuzzInputs.files("chunk-record"))
    func chunkRecord(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { StorageFuzzing.chunkRecord($0) }
        #expect(broken == nil, "\(path)")
    }
}
