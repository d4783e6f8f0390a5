import AssetLoading
import AssetStorage
import Foundation
import Testing

@Suite("AssetLoader file URLs and schemes")
struct AssetLoaderFileTests {
    @Test func fileURLsReadLocalFilesWithoutCaching() async throws {
        let harness = try AssetLoaderHarness()
        let file = harness.directory.appendingPathComponent("local asset.bin")
        let bytes = Data((0..<1_000).map { UInt8($0 % 256) })
        try bytes.write(to: file)
        let response = try await harness.loader.load(AssetRequest(url: file, kind: .image))
        #expect(response.outcome == .localFile)
        #expect(response.size == 1_000)
        let fileData = try await harness.loader.data(for: response)
        #expect(fileData == bytes)
        #expect(!harness.cache.contains(key: response.cacheKey))
        try await harness.close()
    }

    @Test func missingAndOversizedFilesFail() async throws {
        let harness = try AssetLoaderHarness { $0.maxBodySize[.lottie] = 10 }
        await #expect(throws: LoaderError.notFound) {
            _ = try await harness.loader.load(AssetRequest(url: URL(string: "file:///nonexistent/asset.png")!))
        }
        let file = harness.directory.appendingPathComponent("big.json")
        try Data(count: 11).write(to: file)
        await #expect(throws: LoaderError.tooLarge) {
            _ = try await harness.loader.load(AssetRequest(url: file, kind: .lottie))
        }
        try await harness.close()
    }

    @Test func otherSchemesAndBadURLsAreRejected() async throws {
        let harness = try AssetLoaderHarness()
        await #expect(throws: LoaderError.unsupportedScheme) {
            _ = try await harness.loader.load(AssetRequest(url: URL(string: "ftp://example.com/a.png")!))
        }
        await #expect(throws: LoaderError.invalidURL) {
            _ = try await harness.loader.load(AssetRequest(url: URL(string: "no scheme here")!))
        }
        await #expect(throws: LoaderError.invalidURL) {
            _ = try await harness.loader.load(AssetRequest(url: URL(string: "http:///path-without-host")!))
        }
        try await harness.close()
    }

    @Test func defaultCacheKeyNormalisesSchemeHostAndFragment() {
        #expect(AssetLoader.defaultCacheKey(for: "HTTPS://Example.COM/A.png?x=1#frag") == "https://example.com/A.png?x=1")
    }
}
