import AssetTestSupport
import Foundation
import Testing
@_spi(Fuzzing) import AssetLoading

@Suite("Fuzzing regressions: Cache-Control and HTTP-date")
struct FuzzRegressionTests {
    @Test(arguments: FuzzInputs.files("cache-control"))
    func cacheControl(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { LoadingFuzzing.cacheControl($0) }
        #expect(broken == nil, "\(path)")
    }

    @Test(arguments: FuzzInputs.files("http-date"))
    func httpDate(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { LoadingFuzzing.httpDate($0) }
        #expect(broken == nil, "\(path)")
    }
}
