import AssetCodecs
import Foundation
import Testing

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
