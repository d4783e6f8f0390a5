import Crypto
import Foundation
import Testing

/// Access to the repository's `Fixtures/` folder (tests never read outside the repository).
enum Fixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // AssetCodecsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    /// The bytes of `Fixtures/<path>`.
    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    /// Rows of a tab-separated file with a header line; lines starting with '#' are skipped.
    static func table(_ path: String) -> [[String: String]] {
        guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard let head = lines.first else { return [] }
        let names = head.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return lines.dropFirst().map { line in
            let values = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            var row: [String: String] = [:]
            for (index, name) in names.enumerated() where index < values.count { row[name] = values[index] }
            return row
        }
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
