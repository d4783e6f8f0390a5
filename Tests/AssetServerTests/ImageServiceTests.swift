import AssetImaging
@testable import AssetLoading
@testable import AssetServer
import AssetTestSupport
import Foundation
import NIOHTTP1
import Testing

/// `/v1/image` with a transform: encoded variants over a loopback origin, negotiated, cached,
/// conditional, signed, limited.
@Suite("GET /v1/image variants")
struct ImageServiceTests {
    static let chromeAccept = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
    static let jpegSource = "jpeg/libjpeg-turbo/testorig.jpg"  // 227x149

    /// The format a body starts like.
    static func sniff(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if bytes.count > 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] { return "webp" }
        if bytes.count > 12, Array(bytes[4..<12]) == Array("ftypavif".utf8) { return "avif" }
        return "unknown"
    }

    static func serveJPEG(_ harness: ServerHarness, _ path: String = "/photo.jpg", eTag: String = "\"v1\"") throws {
        harness.origin.setRoute(path, .resource(TestResource(
            content: .bytes(try ServerHarness.fixture(jpegSource)), eTag: eTag, headers: freshForAnHour)))
    }

    @Test func autoFollowsAcceptAndEachAnswerIsCachedApart() async throws {
        try await ServerHarness.with { harness in
            try Self.serveJPEG(harness)
            let target = harness.endpoint("image", originPath: "/photo.jpg", "&w=100")
            var tags: Set<String> = []
            for (accept, format) in [(Self.chromeAccept, "avif"), ("image/webp,*/*", "webp"), ("*/*", "jpeg"), ("image/avif;q=0,image/webp", "webp")] {
                let answer = try await harness.send(target, headers: [("Accept", accept)])
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "image/\(format)")
                #expect(Self.sniff(answer.body) == format)
                #expect(answer.header("Vary") == "Accept")
                #expect(answer.header("X-Image-Width") == "100")
                #expect(answer.header("X-Image-Height") == "66")
                #expect(answer.header("Cache-Control") == "max-age=3600")
                #expect(answer.header("Content-Length") == String(answer.body.count))
                let tag = try #require(answer.header("ETag"))
                #expect(tag.hasPrefix("\"v-"))
                tags.insert(tag)
                // the second time it comes from memory, with the same bytes
                let again = try await harness.send(target, headers: [("Accept", accept)])
                #expect(again.header("X-Assetpipe-Cache") == "memory")
                #expect(again.body == answer.body)
                #expect(again.header("ETag") == tag)
            }
            #expect(tags.count == 3)  // avif, webp (twice), jpeg
            #expect(harness.origin.requestCount(path: "/photo.jpg") == 1)
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_transforms_total{format=\"avif\"} 1"))
            #expect(metrics.contains("assetpipe_image_transforms_total{format=\"webp\"} 1"))
            #expect(metrics.contains("assetpipe_image_transforms_total{format=\"jpeg\"} 1"))
            #expect(metrics.contains("assetpipe_image_variant_lookups_total{result=\"miss\"} 3"))
        }
    }

    @Test func alphaGoesToPNGWhenTheClientTakesNeitherAVIFNorWebP() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/a.png", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("imaging/rgb-alpha-8-sRGB.png")), headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("image", originPath: "/a.png", "&w=64"), headers: [("Accept", "image/*")])
            #expect(answer.header("Content-Type") == "image/png")
            #expect(Self.sniff(answer.body) == "png")
        }
    }

    @Test func thePathFormIsTheQueryForm() async throws {
        try await ServerHarness.with { harness in
            try Self.serveJPEG(harness)
            let source = harness.origin.url("/photo.jpg")
            let transform = try ImageTransform(parsing: "w=80,h=80,fit=cover,format=webp")
            let query = try await harness.send(ImageTargets.query(for: transform, source: source))
            let path = try await harness.send(ImageTargets.path(for: transform, source: source))
            #expect(ImageTargets.path(for: transform, source: source).hasSuffix(".webp"))
            #expect(query.status == 200)
            #expect(path.status == 200)
            #expect(path.body == query.body)
            #expect(path.header("ETag") == query.header("ETag"))
            #expect(path.header("X-Image-Width") == "80")
            #expect(path.header("X-Image-Height") == "80")
            #expect(path.header("Vary") == nil)  // the format is fixed
            #expect(harness.origin.requestCount(path: "/photo.jpg") == 1)
            // no extension: auto
            var auto = transform
            auto.format = .auto
            let negotiated = try await harness.send(ImageTargets.path(for: auto, source: source), headers: [("Accept", "image/webp")])
            #expect(negotiated.header("Content-Type") == "image/webp")
            #expect(negotiated.header("Vary") == "Accept")
            for bad in ["/v1/image/_/w:80/\(Base64URL.encodeForTests(source)).bmp", "/v1/image/_/w:80", "/v1/image/_/w:80/%%%.png",
                        "/v1/image/_/w/\(Base64URL.encodeForTests(source))", "/v1/image/_/w:0/\(Base64URL.encodeForTests(source))"] {
                let refused = try await harness.send(bad)
                #expect(refused.status == 400, "\(bad)")
                #expect(refused.errorCode != nil)
            }
        }
    }

    @Test func conditionalRequestsGet304WithoutATransform() async throws {
        try await ServerHarness.with { harness in
            try Self.serveJPEG(harness)
            let target = harness.endpoint("image", originPath: "/photo.jpg", "&w=60&format=png")
            let first = try await harness.send(target)
            let tag = try #require(first.header("ETag"))
            let notModified = try await harness.send(target, headers: [("If-None-Match", tag)])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.header("ETag") == tag)
            let other = try await harness.send(target, headers: [("If-None-Match", "\"v-other\"")])
            #expect(other.status == 200)
            // a node that never made the variant answers a conditional request without making it
            let fresh = harness.endpoint("image", originPath: "/photo.jpg", "&w=61&format=png")
            let headOnly = try await harness.send(fresh, method: .HEAD)
            #expect(headOnly.status == 200)
            #expect(headOnly.body.isEmpty)
            #expect(Int(headOnly.header("Content-Length") ?? "") ?? 0 > 0)
            let transformsBefore = try await Self.transformCount(harness)
            let conditional = try await harness.send(
                harness.endpoint("image", originPath: "/photo.jpg", "&w=61&format=png&q=90"),
                headers: [("If-None-Match", "*")])
            #expect(conditional.status == 304)
            #expect(try await Self.transformCount(harness) == transformsBefore)
        }
    }

    static func transformCount(_ harness: ServerHarness) async throws -> Int {
        let text = try await harness.send("/metrics").text
        return text.split(separator: "\n").filter { $0.hasPrefix("assetpipe_image_transforms_total{") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test func aLargeVariantOnDiskIsSentFromItsFile() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.memoryAssetLimit = 1_000 }) { harness in
            try Self.serveJPEG(harness)
            let target = harness.endpoint("image", originPath: "/photo.jpg", "&w=200&format=png")
            let made = try await harness.send(target)
            #expect(made.status == 200)
            #expect(made.body.count > 1_000)
            #expect(made.header("X-Assetpipe-Cache") == "miss")
            // the util's memory copy answers next; without it, the derived entry on disk does
            let memory = try await harness.send(target)
            #expect(memory.header("X-Assetpipe-Cache") == "memory")
            harness.manager.memoryCache(for: .image).removeAll()
            let disk = try await harness.send(target)
            #expect(disk.status == 200)
            #expect(disk.header("X-Assetpipe-Cache") == "disk")
            #expect(disk.body == made.body)
            #expect(disk.header("ETag") == made.header("ETag"))
            #expect(disk.header("Content-Type") == "image/png")
            #expect(disk.header("X-Image-Width") == "200")
            #expect(try await Self.transformCount(harness) == 1)
        }
    }

    @Test func aChangedSourceGivesANewVariant() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/c.jpg", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture(Self.jpegSource)), eTag: "\"one\"", headers: [("Cache-Control", "no-cache")])))
            let target = harness.endpoint("image", originPath: "/c.jpg", "&w=50&format=webp")
            let first = try await harness.send(target)
            let same = try await harness.send(target)
            #expect(same.header("ETag") == first.header("ETag"))
            #expect(same.header("X-Assetpipe-Cache") == "revalidated")
            harness.origin.setRoute("/c.jpg", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("imaging/orientation-6.jpg")), eTag: "\"two\"", headers: [("Cache-Control", "no-cache")])))
            let changed = try await harness.send(target)
            #expect(changed.status == 200)
            #expect(changed.header("ETag") != first.header("ETag"))
            #expect(changed.body != first.body)
            #expect(changed.header("X-Assetpipe-Cache") == "miss")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func concurrentRequestsForOneColdVariantShareOneFetchAndOneTransform() async throws {
        try await ServerHarness.with { harness in
            let gate = TestGate()
            harness.origin.setRoute("/held.jpg", .response(TestResponse(
                headers: [("ETag", "\"s\""), ("Cache-Control", "max-age=3600")],
                body: .bytes(try ServerHarness.fixture(Self.jpegSource)), gate: gate)))
            let target = harness.endpoint("image", originPath: "/held.jpg", "&w=90&format=webp")
            let callers = 500
            let answers = try await withThrowingTaskGroup(of: ServerHarness.Answer.self) { group in
                for _ in 0..<callers { group.addTask { try await harness.send(target) } }
                // the origin holds its answer until every other request has joined the one load
                await harness.origin.waitForRequests(path: "/held.jpg", count: 1)
                await harness.manager.loader.inFlight.waitForWaiters(callers)
                gate.open()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(Set(answers.map(\.body)).count == 1)
            #expect(harness.origin.requestCount(path: "/held.jpg") == 1)
            #expect(try await Self.transformCount(harness) == 1)
        }
    }

    @Test func signedURLsAreRequiredAndCheckedBeforeAnyFetch() async throws {
        let signer = ImageURLSigner(key: Array("0123456789abcdef-test-key".utf8), salt: Array("pepper".utf8))
        try await ServerHarness.with({ configuration, _ in configuration.images.signer = signer }) { harness in
            try Self.serveJPEG(harness)
            let source = harness.origin.url("/photo.jpg")
            let transform = try ImageTransform(parsing: "w=70,format=webp")
            let signedQuery = signer.queryTarget(for: transform, source: source)
            let signedPath = signer.pathTarget(for: transform, source: source)
            let unsigned = try await harness.send(ImageTargets.query(for: transform, source: source))
            #expect(unsigned.status == 403)
            #expect(unsigned.errorCode == "signature_required")
            let unsignedPath = try await harness.send(ImageTargets.path(for: transform, source: source))
            #expect(unsignedPath.errorCode == "signature_required")
            let changed = try await harness.send(signedQuery.replacingOccurrences(of: "w=70", with: "w=700"))
            #expect(changed.status == 403)
            #expect(changed.errorCode == "bad_signature")
            let added = try await harness.send(signedQuery + "&q=10")
            #expect(added.errorCode == "bad_signature")
            let otherSource = try await harness.send(signedQuery.replacingOccurrences(of: "photo.jpg", with: "other.jpg"))
            #expect(otherSource.errorCode == "bad_signature")
            let garbage = try await harness.send(ImageTargets.query(for: transform, source: source, signature: "AAAA"))
            #expect(garbage.errorCode == "bad_signature")
            #expect(harness.origin.requestCount(path: "/photo.jpg") == 0)
            let good = try await harness.send(signedQuery)
            #expect(good.status == 200)
            #expect(good.header("Content-Type") == "image/webp")
            let goodPath = try await harness.send(signedPath)
            #expect(goodPath.status == 200)
            #expect(goodPath.body == good.body)
            // a signing server serves no unsigned raw pixels either
            for raw in ["", "&format=ppm", "&W=10"] {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", raw))
                #expect(answer.status == 403, "\(raw)")
                #expect(answer.errorCode == "signature_required")
            }
            #expect(harness.origin.requestCount(path: "/photo.jpg") == 1)
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"bad_signature\"} 4"))
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"signature_required\"} 5"))
        }
    }

    @Test func aSignatureIsHMACSHA256OfTheCanonicalTransformAndSource() throws {
        // the expected value comes from Python's hmac module over the same bytes
        let signer = ImageURLSigner(key: Array("0123456789abcdef-test-key".utf8), salt: Array("pepper".utf8))
        let transform = try ImageTransform(parsing: "format=webp,fit=cover,h=256,w=256")
        #expect(signer.signature(for: transform, source: "https://example.org/a.jpg") == "7qhRVZjl1tRn4cfUEDoMTR9IyBdcXmo88y7UjG8rk6E")
        #expect(signer.pathTarget(for: transform, source: "https://example.org/a.jpg")
            == "/v1/image/7qhRVZjl1tRn4cfUEDoMTR9IyBdcXmo88y7UjG8rk6E/w:256,h:256,fit:cover/aHR0cHM6Ly9leGFtcGxlLm9yZy9hLmpwZw.webp")
        #expect(signer.isValid("7qhRVZjl1tRn4cfUEDoMTR9IyBdcXmo88y7UjG8rk6E", for: transform, source: "https://example.org/a.jpg"))
        #expect(!signer.isValid("7qhRVZjl1tRn4cfUEDoMTR9IyBdcXmo88y7UjG8rk6E", for: transform, source: "https://example.org/b.jpg"))
        #expect(ImageURLSigner.keyBytes(fromFile: Array("secret\n".utf8)) == Array("secret".utf8))
    }

    @Test func presetsOnlyAllowsTheDeploymentsOwnSizes() async throws {
        let thumb = try AssetServer.ImageService.preset(parsing: "thumb=w:40,h:40,fit:cover")
        #expect(thumb.name == "thumb")
        #expect(throws: ImagingError.invalidTransform) { try AssetServer.ImageService.preset(parsing: "bad name=w:1") }
        try await ServerHarness.with({ configuration, _ in
            configuration.images.presets = [thumb.name: thumb.transform]
            configuration.images.presetsOnly = true
        }) { harness in
            try Self.serveJPEG(harness)
            let ok = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", "&preset=thumb&format=png"))
            #expect(ok.status == 200)
            #expect(ok.header("X-Image-Width") == "40")
            #expect(ok.header("X-Image-Height") == "40")
            let source = Base64URL.encodeForTests(harness.origin.url("/photo.jpg"))
            let path = try await harness.send("/v1/image/_/preset:thumb/\(source).png")
            #expect(path.body == ok.body)
            for refused in ["&w=41", "&preset=thumb&w=41", "&preset=thumb&q=5"] {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", refused))
                #expect(answer.status == 403, "\(refused)")
                #expect(answer.errorCode == "preset_only")
            }
            let unknown = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", "&preset=huge"))
            #expect(unknown.status == 400)
            #expect(unknown.errorCode == "unknown_preset")
        }
    }

    @Test func limitsRefuseWithTheirOwnCodes() async throws {
        try await ServerHarness.with({ configuration, _ in
            configuration.images.util.processor.maxOutputPixels = 10_000
            configuration.images.maxSourcePixels = 40_000  // the JPEG has 33,823
            configuration.images.util.maxInputBytes = 100_000
        }) { harness in
            try Self.serveJPEG(harness)
            let output = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", "&w=200&enlarge=1"))
            #expect(output.status == 400)
            #expect(output.errorCode == "output_too_large")
            harness.origin.setRoute("/big.png", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("imaging/rgb-alpha-8-sRGB.png")), headers: freshForAnHour)))  // 256x256
            let pixels = try await harness.send(harness.endpoint("image", originPath: "/big.png", "&w=10"))
            #expect(pixels.status == 422)
            #expect(pixels.errorCode == "source_too_large")
            harness.origin.setRoute("/huge.jpg", .resource(TestResource(content: .bytes([UInt8](repeating: 0xFF, count: 200_000)), headers: freshForAnHour)))
            let bytes = try await harness.send(harness.endpoint("image", originPath: "/huge.jpg", "&w=10"))
            #expect(bytes.status == 422)
            #expect(bytes.errorCode == "source_too_large")
            harness.origin.setRoute("/text", .resource(TestResource(content: .bytes(Array("not an image".utf8)), headers: freshForAnHour)))
            let text = try await harness.send(harness.endpoint("image", originPath: "/text", "&w=10"))
            #expect(text.status == 422)
            #expect(text.errorCode == "undecodable")
            for bad in ["&w=-1", "&w=abc", "&fit=sideways", "&q=0", "&dpr=NaN", "&w=1&w=2", "&w=10&zzz=1", "&format=bmp"] {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/photo.jpg", bad))
                #expect(answer.status == 400, "\(bad)")
                #expect(answer.header("Content-Type") == "application/json")
            }
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"source_too_large\"} 2"))
            #expect(metrics.contains("assetpipe_image_refusals_total{code=\"output_too_large\"} 1"))
        }
    }

    @Test func aFullQueueIsA503WithRetryAfter() async throws {
        try await ServerHarness.with({ configuration, _ in
            configuration.images.util.maxConcurrentTransforms = 1
            configuration.images.util.maxQueuedTransforms = 0
            configuration.images.retryAfterSeconds = 2
        }) { harness in
            try Self.serveJPEG(harness)
            _ = try await harness.send(harness.endpoint("asset", originPath: "/photo.jpg"))  // the source is cached
            let answers = try await withThrowingTaskGroup(of: ServerHarness.Answer.self) { group in
                for width in 1_000..<1_006 {
                    let target = harness.endpoint("image", originPath: "/photo.jpg", "&w=\(width)&enlarge=1&format=avif")
                    group.addTask { try await harness.send(target) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let refused = answers.filter { $0.status == 503 }
            #expect(answers.contains { $0.status == 200 })
            #expect(!refused.isEmpty)
            #expect(refused.allSatisfy { $0.errorCode == "overloaded" && $0.header("Retry-After") == "2" })
            #expect(answers.allSatisfy { $0.status == 200 || $0.status == 503 })
        }
    }

    @Test func aSlowTransformIsA503WhileItGoesOnForTheCache() async throws {
        try await ServerHarness.with({ configuration, _ in
            // long enough that the AVIF transform has begun (it takes several hundred ms), so the
            // timeout leaves a transform running: the case where a cancelled one was made twice
            configuration.images.transformTimeout = .milliseconds(100)
        }) { harness in
            try Self.serveJPEG(harness)
            let target = harness.endpoint("image", originPath: "/photo.jpg", "&w=1500&enlarge=1&format=avif")
            let first = try await harness.send(target)
            #expect(first.status == 503)
            #expect(first.errorCode == "transform_timeout")
            #expect(first.header("Retry-After") == "1")
            // The transform went on: the util's own call for the same variant joins it (one key, one
            // transform) or finds what it stored; then the service answers from the cache, and the
            // variant was made once.
            let url = try #require(URL(string: harness.origin.url("/photo.jpg")))
            let made = try await harness.server.responder.context.images.variant(
                for: url, transform: try ImageTransform(parsing: "w=1500,enlarge=1,format=avif"))
            #expect(made.format == .avif && made.width == 1500)
            let second = try await harness.send(target)
            #expect(second.status == 200)
            #expect(["memory", "disk"].contains(second.header("X-Assetpipe-Cache") ?? ""), "\(second.header("X-Assetpipe-Cache") ?? "-")")
            #expect(Data(second.body) == made.data)
            let metrics = try await harness.send("/metrics").text
            #expect(metrics.contains("assetpipe_image_transforms_total{format=\"avif\"} 1"))
        }
    }

    @Test func sourcesWithImpossiblePortsAreInvalidURLsNotACrash() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/to-bad-port", .response(TestResponse(status: 302, headers: [("Location", "http://127.0.0.1:99999/x.jpg")])))
            for source in ["http://127.0.0.1:99999/x", "http://127.0.0.1:70000/x", "http://127.0.0.1:0/x", harness.origin.url("/to-bad-port")] {
                for query in ["/v1/asset?url=\(ServerHarness.encode(source))", "/v1/image?url=\(ServerHarness.encode(source))&w=10"] {
                    let answer = try await harness.send(query)
                    #expect(answer.status == 400, "\(query)")
                    #expect(answer.errorCode == "invalid_url", "\(query)")
                }
            }
            let alive = try await harness.send("/healthz")
            #expect(alive.status == 200)
        }
    }

    @Test func aRequestThatIsNotHTTPGetsAJSONError() async throws {
        try await ServerHarness.with { harness in
            // (a head over the size limit gets the same answer, but the bytes the server leaves
            // unread make its close a reset that can overtake the answer: scripts/image-service-safety
            // checks that one)
            for head in ["GET /v1/image/\u{2211} HTTP/1.1\r\nHost: x\r\n\r\n", "GET /v1/asset?url=a\u{1}b HTTP/1.1\r\nHost: x\r\n\r\n"] {
                let connection = try RawConnection(port: harness.port)
                try connection.send(head)
                // the blocking read runs on a thread of its own, not the pool's (the server needs it)
                let text = String(decoding: await onOwnThread { connection.readAll(timeout: 30) }, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 400"))
                #expect(text.lowercased().contains("content-type: application/json"))
                let body = try #require(text.components(separatedBy: "\r\n\r\n").last)
                let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
                #expect((json?["error"] as? [String: Any])?["code"] as? String == "bad_request")
            }
        }
    }

    @Test func acceptHeadersMapToTheFormatsBrowsersTake() {
        #expect(AcceptedImageFormats.parse(nil) == [.jpeg, .png])
        #expect(AcceptedImageFormats.parse(Self.chromeAccept) == [.avif, .webp, .jpeg, .png])
        #expect(AcceptedImageFormats.parse("image/webp,*/*") == [.webp, .jpeg, .png])
        #expect(AcceptedImageFormats.parse("image/avif;q=0, image/webp;q=0.5") == [.webp, .jpeg, .png])
        #expect(AcceptedImageFormats.parse("IMAGE/AVIF") == [.avif, .jpeg, .png])
        for accept in [nil, Self.chromeAccept, "image/webp", "image/avif;q=0,image/webp", "*/*", "image/avif"] {
            #expect(AcceptedImageFormats.classes[AcceptedImageFormats.classIndex(accept)] == AcceptedImageFormats.parse(accept))
        }
    }
}

extension Base64URL {
    static func encodeForTests(_ text: String) -> String { encode(Array(text.utf8)) }
}
