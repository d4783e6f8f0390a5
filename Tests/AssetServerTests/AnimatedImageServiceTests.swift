import AssetCodecs
import AssetImaging
@testable import AssetServer
import AssetTestSupport
import Foundation
import Testing

/// `/v1/image` over an animated GIF on a loopback origin: kept animated in what the client takes
/// (animated WebP for a browser, GIF for a client that names neither AVIF nor WebP), a still for a
/// still format, one frame with `frame=`.
@Suite("GET /v1/image over animations")
struct AnimatedImageServiceTests {
    static let source = "gif/pillow/iss634.gif"  // 245x245, 42 frames, loops forever

    static func frames(_ body: [UInt8]) throws -> AnimationInfo {
        try AnimationReader(body).info
    }

    @Test func anAnimationStaysAnimatedInWhatTheClientTakes() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/anim.gif", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture(Self.source)), eTag: "\"a1\"", headers: [("Cache-Control", "max-age=3600")])))
            // (a client that takes AVIF but not WebP gets GIF, not the WebP made for the one before)
            for (accept, format) in [(ImageServiceTests.chromeAccept, "webp"), ("image/avif,*/*", "gif"), ("*/*", "gif")] {
                let answer = try await harness.send(
                    harness.endpoint("image", originPath: "/anim.gif", "&w=120"), headers: [("Accept", accept)])
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "image/\(format)")
                let info = try Self.frames(answer.body)
                #expect(info.frameCount == 42)
                #expect(info.plays == 0)
                #expect(info.width == 120 && info.height == 120)
                // a second request is a memory hit of the same bytes
                let again = try await harness.send(
                    harness.endpoint("image", originPath: "/anim.gif", "&w=120"), headers: [("Accept", accept)])
                #expect(again.header("X-Assetpipe-Cache") == "memory")
                #expect(again.body == answer.body)
            }
            let still = try await harness.send(harness.endpoint("image", originPath: "/anim.gif", "&w=120&format=png"))
            #expect(still.status == 200)
            #expect(still.header("Content-Type") == "image/png")
            let frame = try await harness.send(harness.endpoint("image", originPath: "/anim.gif", "&w=120&frame=5&format=png"))
            #expect(frame.status == 200)
            #expect(frame.body != still.body)
            let decodedFrame = try ImageDecoder().decode(frame.body).bitmap
            let expected = try AnimationProcessor().frame(of: try ServerHarness.fixture(Self.source), at: .number(5))
            let expectedStill = try ImageProcessor().process(bitmap: expected, transform: ImageTransform(width: 120, format: .format(.png)))
            #expect(decodedFrame == (try ImageDecoder().decode(expectedStill.bytes).bitmap))
            #expect(harness.origin.requestCount(path: "/anim.gif") == 1)
        }
    }
}
