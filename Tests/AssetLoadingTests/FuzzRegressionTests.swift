import Foundation
import Testing
@_spi(Fuzzing) import AssetLoading

/// The inputs of `Fixtures/fuzz/TARGET` (the fuzzers' seeds and every crash they found), replayed
/// through the same entries the fuzzers run.
enum FuzzInputs {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    /// Every file of the target's `seeds/` and `crashes/`, by its path under `Fixtures/fuzz`.
    static func files(_ target: String) -> [String] {
        ["seeds", "crashes"].flatMap { folder -> [String] in
            let dir = root.appendingPathComponent("\(target)/\(folder)")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.sorted().map { "\(target)/\(folder)/\($0)" }
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }
}

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
