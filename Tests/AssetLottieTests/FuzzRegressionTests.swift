import Foundation
import Testing
@_spi(Fuzzing) @testable import AssetLottie

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

@Suite("Fuzzing regressions: dotLottie and the Lottie parser")
struct FuzzRegressionTests {
    /// The crash inputs of `dotlottie`, and the dotLottie fixtures it is seeded from.
    static let dotLottieInputs: [String] = {
        let fixtures = FuzzInputs.root.deletingLastPathComponent().appendingPathComponent("lottie")
        let enumerator = FileManager.default.enumerator(atPath: fixtures.path)
        let archives = (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".lottie") }.sorted()
        return FuzzInputs.files("dotlottie") + archives.map { "../lottie/\($0)" }
    }()

    @Test(arguments: dotLottieInputs)
    func dotLottie(_ path: String) throws {
        let broken = try FuzzInputs.bytes(path).withUnsafeBytes { LottieContainerFuzzing.dotLottie($0) }
        #expect(broken == nil, "\(path)")
    }

    /// What the lottie fuzzer found, through the readers and both parser modes: an error or a
    /// document, never a crash.
    @Test(arguments: FuzzInputs.files("lottie"))
    func lottie(_ path: String) throws {
        let data = Data(try FuzzInputs.bytes(path))
        _ = try? LottieDocumentReader().read(data)
        var strict = LottieParser.Configuration()
        strict.strict = true
        _ = try? LottieParser(configuration: strict).parse(data)
    }
}
