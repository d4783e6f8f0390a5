import AssetTestSupport
import Foundation
import Testing
@_spi(Fuzzing) @testable import AssetLottie

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
