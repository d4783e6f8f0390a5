import AssetCodecs
import AssetImaging
import AssetPipeline
@testable import AssetServer
import AssetTestSupport
import AssetVideoFrames
import Foundation
import Testing

/// `GET /v1/storyboard`: a video's WebVTT thumbnails track, its JSON and its sprite, read by range
/// from a loopback origin.
@Suite("GET /v1/storyboard")
struct StoryboardEndpointTests {
    @Test func theVTTPointsIntoTheSpriteAndOnlyTheIndexAndKeyFramesAreFetched() async throws {
        try await ServerHarness.with { harness in
            let (route, size) = try VideoFrameByRangeTests.serveVideo(harness)
            let vtt = try await harness.send(harness.endpoint("storyboard", originPath: "/v.mp4", "&interval=2s&w=160&columns=5"))
            #expect(vtt.status == 200, "\(vtt.text)")
            #expect(vtt.header("Content-Type") == "text/vtt; charset=utf-8")
            #expect(vtt.header("X-Assetpipe-Cache") == "miss")
            #expect(vtt.header("Cache-Control") == "max-age=3600")
            let lines = vtt.text.split(separator: "\n").map(String.init)
            #expect(lines.first == "WEBVTT")
            let cues = lines.filter { $0.contains(" --> ") }
            let fragments = lines.filter { $0.contains("#xywh=") }
            #expect(cues.count == 9 && fragments.count == 9)
            #expect(cues[1] == "00:00:02.000 --> 00:00:04.000")
            // 5 a row: the sixth tile starts the second row
            #expect(fragments[5].hasSuffix("#xywh=0,90,160,90"))
            #expect(fragments[4].hasSuffix("#xywh=640,0,160,90"))
            let spriteURL = try #require(fragments[0].split(separator: "#").first.map(String.init))
            #expect(spriteURL.hasPrefix("storyboard?url=") && spriteURL.hasSuffix("&format=jpg"))
            #expect(route.bodyBytes < size / 5, "fetched \(route.bodyBytes) of \(size)")

            // the sprite, at the cue's URL relative to the storyboard's: the same storyboard, from memory
            let requests = route.requests
            let sprite = try await harness.send("/v1/" + spriteURL)
            #expect(sprite.status == 200, "\(sprite.text)")
            #expect(sprite.header("Content-Type") == "image/jpeg")
            #expect(sprite.header("X-Image-Width") == "800" && sprite.header("X-Image-Height") == "180")
            #expect(sprite.header("X-Assetpipe-Cache") == "memory")
            let decoded = try ImageDecoder().decode(Data(sprite.body))
            #expect((decoded.bitmap.width, decoded.bitmap.height) == (800, 180))
            #expect(route.requests == requests)

            // JSON, as Mux's storyboard.json
            let json = try await harness.send(harness.endpoint("storyboard", originPath: "/v.mp4", "&interval=2s&w=160&columns=5&format=json"))
            #expect(json.header("Content-Type") == "application/json")
            let object = try json.json
            #expect(object["url"] as? String == spriteURL)
            #expect(object["tile_width"] as? Int == 160 && object["tile_height"] as? Int == 90)
            let tiles = try #require(object["tiles"] as? [[String: Any]])
            #expect(tiles.count == 9 && tiles[5]["x"] as? Int == 0 && tiles[5]["y"] as? Int == 90)

            // a client that holds the track gets a 304, each answer its own tag
            let eTag = try #require(vtt.header("ETag"))
            #expect(eTag != sprite.header("ETag") && eTag != json.header("ETag"))
            let revalidated = try await harness.send(
                harness.endpoint("storyboard", originPath: "/v.mp4", "&interval=2s&w=160&columns=5"), headers: [("If-None-Match", eTag)])
            #expect(revalidated.status == 304)
            // a WebP sprite is another storyboard
            let webp = try await harness.send(harness.endpoint("storyboard", originPath: "/v.mp4", "&interval=2s&w=160&format=webp"))
            #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp")
            #expect(webp.header("X-Image-Width") == "1440")
        }
    }

    @Test func badParametersAndSourcesAreTypedErrors() async throws {
        try await ServerHarness.with { harness in
            _ = try VideoFrameByRangeTests.serveVideo(harness)
            harness.origin.setRoute("/page", .resource(TestResource(content: .bytes(Array("<html></html>".utf8)), eTag: "\"h\"", headers: freshForAnHour)))
            for extra in ["&interval=0", "&interval=soon", "&w=0", "&w=99999", "&columns=0", "&format=gif", "&frames=some", "&sprite=png"] {
                let bad = try await harness.send(harness.endpoint("storyboard", originPath: "/v.mp4", extra))
                #expect(bad.status == 400, "\(extra)")
                #expect(bad.errorCode == "invalid_parameter", "\(extra)")
            }
            let missing = try await harness.send("/v1/storyboard")
            #expect(missing.status == 400)
            let page = try await harness.send(harness.endpoint("storyboard", originPath: "/page"))
            #expect(page.status == 422, "\(page.text)")
            #expect(page.errorCode == "undecodable")
        }
    }
}
