import AssetCodecs
import AssetImaging
import AssetPipeline
@testable import AssetServer
import AssetTestSupport
import AssetVideoFrames
import Foundation
import Synchronization
import Testing

/// A route that counts the body bytes the origin sends.
final class CountingRoute: Sendable {
    private let state: Mutex<(resource: TestResource, bytes: Int, requests: Int)>
    init(_ resource: TestResource) { state = Mutex((resource, 0, 0)) }

    var bodyBytes: Int { state.withLock { $0.bytes } }
    var requests: Int { state.withLock { $0.requests } }

    /// Serves the resource at `path` of `origin`, counting.
    static func serve(_ origin: TestOrigin, _ path: String, _ resource: TestResource) -> CountingRoute {
        let route = CountingRoute(resource)
        origin.setRoute(path, .handler { request in
            route.state.withLock { state in
                let response = state.resource.response(to: request)
                state.bytes += response.body.declaredLength ?? 0
                state.requests += 1
                return response
            }
        })
        return route
    }
}

/// `/v1/image?url=VIDEO&frame=…`: the frame read by range through the chunk store, never the
/// video whole, so a video past the source limit still gives its frames.
@Suite("GET /v1/image?frame= (video frames by range)")
struct VideoFrameByRangeTests {
    /// 3 MB, 17 s of 640x360 H.264, its index at the end.
    static let long = "video/sample_with_increasing_timestamps_360p.mp4"

    static func serveVideo(_ harness: ServerHarness, at path: String = "/v.mp4") throws -> (CountingRoute, Int) {
        let bytes = try ServerHarness.fixture(Self.long)
        let route = CountingRoute.serve(harness.origin, path, TestResource(content: .bytes(bytes), eTag: "\"v1\"", headers: freshForAnHour))
        return (route, bytes.count)
    }

    @Test func aFrameOfAVideoPastTheSourceLimitCostsTheIndexAndOneStretch() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.images.util.maxInputBytes = 256 << 10 }) { harness in
            let (route, size) = try Self.serveVideo(harness, at: "/clip")
            let first = try await harness.send(harness.endpoint("image", originPath: "/clip", "&frame=50%25&w=320&format=png"))
            #expect(first.status == 200, "\(first.text)")
            #expect(first.header("X-Image-Width") == "320" && first.header("X-Image-Height") == "180")
            #expect(first.header("X-Assetpipe-Cache") == "miss")
            #expect(route.bodyBytes < size / 4, "fetched \(route.bodyBytes) of \(size)")
            let bytes = try ServerHarness.fixture(Self.long)
            let expected = try FrameVariantTests.expectedVideoFrame(bytes, at: .progress(0.5), transform: "w=320,format=png")
            #expect(first.body == expected)
            // a conditional request for the same variant: 304, before any decode
            let eTag = try #require(first.header("ETag"))
            let revalidated = try await harness.send(
                harness.endpoint("image", originPath: "/clip", "&frame=50%25&w=320&format=png"), headers: [("If-None-Match", eTag)])
            #expect(revalidated.status == 304)
            let requests = route.requests
            let again = try await harness.send(harness.endpoint("image", originPath: "/clip", "&frame=50%25&w=320&format=png"))
            #expect(again.header("X-Assetpipe-Cache") == "memory" && again.body == first.body)
            #expect(route.requests == requests)
        }
    }
}
