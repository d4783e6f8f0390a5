import Foundation

/// Paths of the Lottie fixtures (`Fixtures/lottie`, a copy of the shared corpus plus reference.tsv).
enum Fixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/lottie")

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

    /// The rows of a TSV file as dictionaries keyed by its header.
    static func tsv(_ relative: String) throws -> [[String: String]] {
        let text = try String(contentsOf: url(relative), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.removeFirst()
        return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    /// Every corpus file with its `expect` column.
    static func corpus() throws -> [(path: String, expect: String)] {
        try tsv("FILES.tsv").map { ($0["path"]!, $0["expect"]!) }
    }
}
