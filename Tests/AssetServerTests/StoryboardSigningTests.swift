import AssetCodecs
import AssetImaging
@testable import AssetServer
import AssetTestSupport
import AssetVideoFrames
import Foundation
import Testing

/// `GET /v1/storyboard` on a server that signs its URLs: signed storyboards are served and the
/// sprite URLs they name are signed too; unsigned and tampered ones get the refusals `/v1/image`
/// gives, before anything is fetched from the loopback origin.
@Suite("GET /v1/storyboard, signed")
struct StoryboardSigningTests {
    static let signer = ImageURLSigner(key: Array("0123456789abcdef-test-key".utf8), salt: Array("pepper".utf8))

    @Test func aSignedServerServesSignedStoryboardsWhoseSpriteURLsWork() async throws {
        let signer = Self.signer
        try await ServerHarness.with({ configuration, _ in configuration.images.signer = signer }) { harness in
            let (route, _) = try VideoFrameByRangeTests.serveVideo(harness)
            let source = harness.origin.url("/v.mp4")
            let spec = VideoStoryboardSpec(interval: 2, tileWidth: 160, columns: 5)
            let signed = signer.storyboardTarget(for: spec, source: source)
            let vtt = try await harness.send(signed)
            #expect(vtt.status == 200, "\(vtt.text)")
            #expect(vtt.header("Content-Type") == "text/vtt; charset=utf-8")
            let fragments = vtt.text.split(separator: "\n").filter { $0.contains("#xywh=") }
            #expect(fragments.count == 9)
            // every cue names one sprite URL, and it carries the storyboard's signature
            let spriteURLs = Set(fragments.compactMap { $0.split(separator: "#").first.map(String.init) })
            #expect(spriteURLs.count == 1)
            let spriteURL = try #require(spriteURLs.first)
            let signature = signer.signature(forStoryboard: spec, source: source)
            #expect(spriteURL.hasPrefix("storyboard?url=") && spriteURL.hasSuffix("&format=jpg&sig=" + signature), "\(spriteURL)")
            let requests = route.requests
            let sprite = try await harness.send("/v1/" + spriteURL)
            #expect(sprite.status == 200, "\(sprite.text)")
            #expect(sprite.header("Content-Type") == "image/jpeg")
            #expect(sprite.header("X-Assetpipe-Cache") == "memory")
            let decoded = try ImageDecoder().decode(Data(sprite.body))
            #expect((decoded.bitmap.width, decoded.bitmap.height) == (800, 180))
            #expect(route.requests == requests)

            // the JSON of the same storyboard takes the same signature and names the same sprite
            let json = try await harness.send(signer.storyboardTarget(for: spec, source: source, answer: .json))
            #expect(json.status == 200, "\(json.text)")
            let object = try json.json
            #expect(object["url"] as? String == spriteURL)

            // a WebP sprite is another storyboard with its own signature, which its VTT's cues carry
            let webpVTT = try await harness.send(signer.storyboardTarget(for: spec, sprite: .webp, source: source))
            #expect(webpVTT.status == 200, "\(webpVTT.text)")
            let webpURL = try #require(webpVTT.text.split(separator: "\n").first { $0.contains("#xywh=") }?.split(separator: "#").first)
            #expect(webpURL.hasSuffix("&format=webp&sig=" + signer.signature(forStoryboard: spec, sprite: .webp, source: source)))
            let webp = try await harness.send("/v1/" + webpURL)
            #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp", "\(webp.text)")
            // the JPEG sprite's signature does not pass for the WebP sprite
            let swapped = try await harness.send("/v1/" + spriteURL.replacingOccurrences(of: "format=jpg", with: "format=webp"))
            #expect(swapped.status == 403 && swapped.errorCode == "bad_signature")
        }
    }

    @Test func unsignedAndTamperedStoryboardsAreRefusedBeforeAnyFetch() async throws {
        let signer = Self.signer
        try await ServerHarness.with({ configuration, _ in configuration.images.signer = signer }) { harness in
            let (route, _) = try VideoFrameByRangeTests.serveVideo(harness)
            let source = harness.origin.url("/v.mp4")
            let spec = VideoStoryboardSpec(interval: 2, tileWidth: 160, columns: 5)
            let signed = signer.storyboardTarget(for: spec, source: source)
            #expect(signed.contains("&interval=2&w=160&columns=5&format=vtt&sig="))

            var required = 0, bad = 0
            for unsigned in [
                StoryboardTargets.query(for: spec, source: source), StoryboardTargets.query(for: spec, source: source, answer: .sprite),
                harness.endpoint("storyboard", originPath: "/v.mp4"), harness.endpoint("storyboard", originPath: "/v.mp4", "&interval=soon"),
            ] {
                let answer = try await harness.send(unsigned)
                #expect(answer.status == 403, "\(unsigned)")
                #expect(answer.errorCode == "signature_required", "\(unsigned)")
                required += 1
            }
            let imageTransform = try ImageTransform(parsing: "w=160")
            let imageSignature = signer.signature(for: imageTransform, source: source)
            for tampered in [
                signed.replacingOccurrences(of: "interval=2", with: "interval=3"),
                signed.replacingOccurrences(of: "w=160", with: "w=1600"),
                signed.replacingOccurrences(of: "columns=5", with: "columns=50"),
                signed.replacingOccurrences(of: "format=vtt", with: "format=vtt&frames=exact"),
                signed.replacingOccurrences(of: "format=vtt", with: "format=vtt&sprite=webp"),
                signed.replacingOccurrences(of: "format=vtt", with: "format=vtt&h=20"),
                signed.replacingOccurrences(of: "v.mp4", with: "other.mp4"),
                signed.replacingOccurrences(of: "interval=2", with: "interval=soon"),
                StoryboardTargets.query(for: spec, source: source, signature: "AAAA"),
                StoryboardTargets.query(for: spec, source: source, signature: imageSignature),
            ] {
                let answer = try await harness.send(tampered)
                #expect(answer.status == 403, "\(tampered)")
                #expect(answer.errorCode == "bad_signature", "\(tampered)")
                bad += 1
            }
            // one storyboard, one meaning: a key given twice is a bad request, not a second reading
            let twice = try await harness.send(signed + "&interval=30")
            #expect(twice.status == 400 && twice.errorCode == "invalid_parameter")
            #expect(route.requests == 0)

            // the same signature with the query in another order and the defaults spelled out
            let reordered = "/v1/storyboard?format=vtt&columns=5&url=" + ServerHarness.encode(source)
                + "&width=160&interval=2.000s&frames=key&sprite=jpg&sig=" + signer.signature(forStoryboard: spec, source: source)
            let good = try await harness.send(reordered)
            #expect(good.status == 200, "\(good.text)")
            #expect(route.requests > 0)
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"signature_required\"} \(required)\n"), "\(metrics)")
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"bad_signature\"} \(bad)\n"), "\(metrics)")
        }
    }

    @Test func aStoryboardSignatureIsHMACSHA256OfItsCanonicalText() {
        // the expected values come from Python's hmac module over the same bytes
        let signer = Self.signer
        let source = "https://example.org/v.mp4"
        let spec = VideoStoryboardSpec(interval: 2, tileWidth: 160, columns: 5)
        #expect(signer.signature(forStoryboard: spec, source: source) == "ej48sqJNYe3P5IZrK6gy-tSvqA129wGXXXrC6VJvTRo")
        #expect(signer.storyboardTarget(for: spec, source: source)
            == "/v1/storyboard?url=https%3A%2F%2Fexample.org%2Fv.mp4&interval=2&w=160&columns=5&format=vtt&sig=ej48sqJNYe3P5IZrK6gy-tSvqA129wGXXXrC6VJvTRo")
        let exact = VideoStoryboardSpec(interval: 2.5, tileWidth: nil, tileHeight: 90, keyFramesOnly: false)
        #expect(signer.signature(forStoryboard: exact, sprite: .webp, source: source) == "92ZfYOhskY27e6CkqV2RVZXWnTSj5nLgttO_YsNSWl4")
        #expect(signer.isValid("92ZfYOhskY27e6CkqV2RVZXWnTSj5nLgttO_YsNSWl4", forStoryboard: exact, sprite: .webp, source: source))
        #expect(!signer.isValid("92ZfYOhskY27e6CkqV2RVZXWnTSj5nLgttO_YsNSWl4", forStoryboard: exact, sprite: .jpeg, source: source))
    }
}
