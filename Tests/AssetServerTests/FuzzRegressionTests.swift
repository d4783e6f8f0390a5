import AssetTestSupport
import Foundation
import Testing
@_spi(Fuzzing) import AssetServer

@Suite("Fuzzing regressions: a client's Range")
struct FuzzRegressionTests {
    @Test(arguments: FuzzInputs.files("range"))
    func range(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { ServerFuzzing.range($0) }
        #expect(broken == nil, "\(path)")
    }
}
