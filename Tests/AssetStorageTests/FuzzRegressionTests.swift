import Foundation
import Testing
@_spi(Fuzzing) import AssetStorage

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

@Suite("Fuzzing regressions: chunk records")
struct FuzzRegressionTests {
    @Test(arguments: FuzzInputs.files("chunk-record"))
    func chunkRecord(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { StorageFuzzing.chunkRecord($0) }
        #expect(broken == nil, "\(path)")
    }
}
