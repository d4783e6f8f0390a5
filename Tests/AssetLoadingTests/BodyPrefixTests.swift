import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

/// ``AssetResponse/bodyPrefix``: the first bytes of a cache entry's body come with every answer that
/// names an entry (a download, a hit, a revalidation), so that a caller sniffing the format (the
/// prefetcher) needs no read of its own.
@Suite("AssetLoader: an entry's first bytes with its answer")
struct BodyPrefixTests {
    @Test func downloadsHitsAndRevalidationsCarryTheFirstBytes() async throws {
        try await withOriginAndLoader { origin, harness in
            let bytes = TestContent.generatedBytes(0..<100_000)
            let want = Array(bytes.prefix(AssetResponse.bodyPrefixLength))
            origin.setRoute("/fresh", .resource(TestResource(content: .bytes(bytes), eTag: "\"f\"", headers: [("Cache-Control", "max-age=3600")])))
            origin.setRoute("/stale", .resource(TestResource(content: .bytes(bytes), eTag: "\"s\"", headers: [("Cache-Control", "max-age=0")])))
            origin.setRoute("/tiny", .resource(TestResource(content: .bytes(Array("tiny".utf8)), headers: [("Cache-Control", "max-age=3600")])))

            let downloaded = try await harness.loader.load(AssetRequest(url: origin.location("/fresh")))
            #expect(downloaded.outcome == .downloaded && downloaded.bodyPrefix == want)
            let hit = try await harness.loader.load(AssetRequest(url: origin.location("/fresh")))
            #expect(hit.outcome == .cached)
            #expect(hit.bodyPrefix == want)

            _ = try await harness.loader.load(AssetRequest(url: origin.location("/stale")))
            let revalidated = try await harness.loader.load(AssetRequest(url: origin.location("/stale")))
            #expect(revalidated.outcome == .revalidated)
            #expect(revalidated.bodyPrefix == want)

            _ = try await harness.loader.load(AssetRequest(url: origin.location("/tiny")))
            let tiny = try await harness.loader.load(AssetRequest(url: origin.location("/tiny")))
            #expect(tiny.outcome == .cached)
            #expect(tiny.bodyPrefix == Array("tiny".utf8))
        }
    }
}
