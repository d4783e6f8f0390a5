import Foundation

/// The inputs of `Fixtures/fuzz/TARGET` (the fuzzers' seeds and every crash they found), for the
/// test targets that replay them through the same entries the fuzzers run.
public enum FuzzInputs {
    /// `Fixtures/fuzz` of this package.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    /// Every file of the target's `seeds/` and `crashes/`, by its path under `Fixtures/fuzz`.
    public static func files(_ target: String) -> [String] {
        ["seeds", "crashes"].flatMap { folder -> [String] in
            let dir = root.appendingPathComponent("\(target)/\(folder)")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.sorted().map { "\(target)/\(folder)/\($0)" }
        }
    }

    /// The bytes of one input, by its path under `Fixtures/fuzz`.
    public static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }
}
