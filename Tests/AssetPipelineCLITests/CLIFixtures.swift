import Crypto
import Foundation
import Testing

/// The repository's `Fixtures/` folder, read by the `decode` and `lottie` command tests.
enum CLIFixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func bytes(_ relative: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: root.appendingPathComponent(relative))) }

    /// Rows of a tab-separated file under `Fixtures/`, keyed by its header; `#` lines skipped.
    static func rows(_ relative: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path(relative), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard let header = lines.first?.split(separator: "\t").map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)))
        }
    }

    /// The reference SHA-256 of the RGBA pixels of `relative` at `scale`, from image-reference-hashes.tsv.
    static func pixelHash(_ relative: String, scale: Int = 1) throws -> (width: Int, height: Int, sha256: String) {
        let row = try #require(try rows("image-reference-hashes.tsv").first { $0["path"] == relative && $0["scale"] == "\(scale)" })
        return (Int(row["width"]!)!, Int(row["height"]!)!, row["sha256"]!)
    }

    static func sha256<D: DataProtocol>(_ bytes: D) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// A new, empty directory under the system's temporary directory: `assetpipe-<purpose>-<UUID>`.
    static func temporaryDirectory(_ purpose: String = "cli") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-\(purpose)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
