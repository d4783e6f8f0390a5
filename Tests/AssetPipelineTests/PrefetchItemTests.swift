import AssetImaging
import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Synchronization
import Testing
@testable import AssetPipeline

/// A prefetch from Swift over an array of `PrefetchItem`s: the same run as over a list file.
@Suite("Prefetch items") struct PrefetchItemTests {
    @Test func itemsRunAsAListDuplicatesOnceAndNumberedInOrder() async throws {
        let png = try UtilTestSupport.fixture("png/pngsuite/basn6a08.png")
        let fresh = [("Cache-Control", "max-age=3600")]
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"a\"", headers: fresh)))
            origin.setRoute("/b.bin", .resource(TestResource(content: .bytes(Array("b".utf8)), eTag: "\"b\"", headers: fresh)))
            try await UtilTestSupport.withManager { manager in
                let items = [
                    PrefetchItem(url: origin.location("/a.png"), kind: .image),
                    PrefetchItem(url: origin.location("/b.bin")),
                    PrefetchItem(url: origin.location("/a.png"), kind: .image),
                    PrefetchItem(url: origin.location("/missing")),
                ]
                let results = Mutex<[PrefetchResult]>([])
                let prefetcher = Prefetcher(manager: manager, configuration: .init(concurrency: 2, validate: true))
                let summary = await prefetcher.run(items) { result in results.withLock { $0.append(result) } }
                #expect(summary.total == 3 && summary.duplicates == 1)
                #expect(summary.downloaded == 2 && summary.failed == 1)
                let byLine = Dictionary(uniqueKeysWithValues: results.withLock { $0 }.map { ($0.line, $0) })
                #expect(byLine[1]?.url == origin.url("/a.png") && byLine[1]?.kind == .image)
                #expect(byLine[2]?.outcome == "downloaded")
                #expect(byLine[4]?.status == 404)
                // stored: a second run is answered from the cache
                let again = await Prefetcher(manager: manager).run(Array(items.prefix(2))) { _ in }
                #expect(again.cached == 2 && again.downloaded == 0)
            }
        }
    }

    @Test func variantsAreMadeForImagesAndAutoCoversEachBrowserAnswer() async throws {
        let png = try UtilTestSupport.fixture("png/pngsuite/basn6a08.png")
        let fresh = [("Cache-Control", "max-age=3600")]
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"a\"", headers: fresh)))
            origin.setRoute("/b.bin", .resource(TestResource(content: .bytes(Array("b".utf8)), eTag: "\"b\"", headers: fresh)))
            try await UtilTestSupport.withManager { manager in
                let variants = [try ImageTransform(parsing: "w=16,format=webp"), try ImageTransform(parsing: "w=20")]
                let results = Mutex<[PrefetchResult]>([])
                let prefetcher = Prefetcher(manager: manager, configuration: .init(variants: variants))
                let summary = await prefetcher.run([PrefetchItem(url: origin.location("/a.png")), PrefetchItem(url: origin.location("/b.bin"))]) {
                    result in results.withLock { $0.append(result) }
                }
                #expect(summary.failed == 0)
                #expect(summary.variants == 4)  // webp, and auto as AVIF, WebP and PNG (the image has alpha)
                let byLine = Dictionary(uniqueKeysWithValues: results.withLock { $0 }.map { ($0.line, $0) })
                #expect(byLine[1]?.variants == 4)
                #expect(byLine[2]?.variants == 0)
                let images = ImageUtil(manager: manager)
                for (transform, accepted, format) in [
                    (variants[0], nil, OutputFormat.webp), (variants[1], [OutputFormat.avif, .webp, .jpeg, .png], .avif),
                    (variants[1], [.webp, .jpeg, .png], .webp), (variants[1], [.jpeg, .png], .png),
                ] {
                    let variant = try await images.variant(for: origin.location("/a.png"), transform: transform, accepting: accepted)
                    #expect(variant.format == format)
                    #expect(variant.origin != .transformed)
                }
                #expect(images.transformCount == 0)
                #expect(origin.requestCount(path: "/a.png") == 1)
            }
        }
    }

    @Test func anItemIsAListLine() {
        let url = URL(string: "http://127.0.0.1:1/a%20b.png?x=1")!
        #expect(PrefetchItem(url: url).line == "http://127.0.0.1:1/a%20b.png?x=1")
        #expect(PrefetchItem(url: url, kind: .video).line == "http://127.0.0.1:1/a%20b.png?x=1\tvideo")
        #expect(PrefetchLine.parse(PrefetchItem(url: url, kind: .lottie).line) == .item(url: url.absoluteString, kind: .lottie))
    }
}
