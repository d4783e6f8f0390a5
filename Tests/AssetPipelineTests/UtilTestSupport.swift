import AssetStorage
import Crypto
import Foundation
import Testing
@testable import AssetPipeline

/// Fixtures, temporary managers and small helpers for the util tests.
enum UtilTestSupport {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(relative)))
    }

    /// The rows of a tab-separated fixture file (lines starting with `#` skipped) keyed by its header.
    static func tsv(_ relative: String) throws -> [[String: String]] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(relative), encoding: .utf8)
        var rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows.removeFirst()
        return rows.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    /// The reference SHA-256 of the RGBA pixels `path` decodes to at `scale` (1 = full size).
    static func referenceHash(_ path: String, scale: Int = 1) throws -> String {
        let row = try tsv("image-reference-hashes.tsv").first { $0["path"] == path && $0["scale"] == String(scale) }
        return try #require(row?["sha256"])
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// A manager over a fresh temporary directory; `body` runs with it, then it is shut down and
    /// the directory removed.
    static func withManager<T>(
        memory: [AssetKind: CachePolicy]? = nil, _ body: (AssetsManager) async throws -> T
    ) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-utils-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = AssetsManager.Configuration(directory: dir)
        if let memory { configuration.memory = memory }
        let manager = try await AssetsManager.open(configuration: configuration)
        do {
            let result = try await body(manager)
            try await manager.shutdown()
            return result
        } catch {
            try? await manager.shutdown()
            throw error
        }
    }

    /// Waits (yielding, never sleeping) until `condition` holds; fails the test after `seconds`.
    static func until(_ what: String, seconds: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                throw CancellationError()
            }
            await Task.yield()
        }
    }
}

/// Headers that make a response fresh for an hour, so that a second load comes from the disk cache.
let freshForAnHour: [(String, String)] = [("Cache-Control", "max-age=3600")]
