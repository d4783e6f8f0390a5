import AssetTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Reverse-proxy mode as a shared cache (RFC 9111).
@Suite("Reverse proxy")
struct ReverseProxyTests {
    static func withProxy(_ body: (ServerHarness) async throws -> Void) async throws {
        try await ServerHarness.with({ configuration, origin in configuration.origin = origin.baseURL }, body)
    }

    @Test func storesAndSendsAge() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/page", .response(TestResponse(
                headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "text/plain"), ("Age", "100"), ("X-Custom", "kept")],
                body: .text("cached page"))))
            let first = try await harness.send("/page?q=1")
            #expect(first.status == 200)
            #expect(first.text == "cached page")
            #expect(first.header("X-Custom") == "kept")
            #expect(first.header("Via")?.contains("assetpipe") == true)
            let second = try await harness.send("/page?q=1")
            #expect(second.text == "cached page")
            let age = try #require(second.header("Age").flatMap(Int.init))
            #expect(age >= 100)
            #expect(harness.origin.requestCount(path: "/page") == 1)
            #expect(harness.origin.requests(path: "/page").first?.query == "q=1")
            // another query is another resource
            _ = try await harness.send("/page?q=2")
            #expect(harness.origin.requestCount(path: "/page") == 2)
        }
    }

    @Test func sharedMaxAgeWinsAndPrivateIsNotStored() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/smax", .response(TestResponse(headers: [("Cache-Control", "max-age=0, s-maxage=3600")], body: .text("s"))))
            harness.origin.setRoute("/private", .response(TestResponse(headers: [("Cache-Control", "private, max-age=3600")], body: .text("p"))))
            harness.origin.setRoute("/nostore", .response(TestResponse(headers: [("Cache-Control", "no-store, max-age=3600")], body: .text("n"))))
            harness.origin.setRoute("/understood", .response(TestResponse(
                headers: [("Cache-Control", "no-store, must-understand, max-age=3600")], body: .text("u"))))
            for path in ["/smax", "/private", "/nostore", "/understood"] {
                for _ in 0..<2 {
                    let answer = try await harness.send(path)
                    #expect(answer.status == 200, "\(path)")
                }
            }
            #expect(harness.origin.requestCount(path: "/smax") == 1)
            #expect(harness.origin.requestCount(path: "/private") == 2)
            #expect(harness.origin.requestCount(path: "/nostore") == 2)
            #expect(harness.origin.requestCount(path: "/understood") == 1)
        }
    }

    @Test func authorizationIsStoredOnlyWhereAllowed() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/plain", .response(TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .text("a"))))
            harness.origin.setRoute("/public", .response(TestResponse(headers: [("Cache-Control", "public, max-age=3600")], body: .text("b"))))
            for path in ["/plain", "/public"] {
                for _ in 0..<2 {
                    let answer = try await harness.send(path, headers: [("Authorization", "Bearer user")])
                    #expect(answer.status == 200)
                }
            }
            #expect(harness.origin.requestCount(path: "/plain") == 2)
            #expect(harness.origin.requestCount(path: "/public") == 1)
            #expect(harness.origin.requests(path: "/plain").first?.header("Authorization") == "Bearer user")
        }
    }

    @Test func varySelectsStoredVariants() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/v", .handler { request in
                let language = request.header("Accept-Language") ?? "none"
                return TestResponse(headers: [("Cache-Control", "max-age=3600"), ("Vary", "Accept-Language")], body: .text("lang=\(language)"))
            })
            for (language, expected) in [("en", "lang=en"), ("fr", "lang=fr"), ("en", "lang=en"), ("fr", "lang=fr")] {
                let answer = try await harness.send("/v", headers: [("Accept-Language", language)])
                #expect(answer.text == expected)
                #expect(answer.header("Vary") == "Accept-Language")
            }
            #expect(harness.origin.requestCount(path: "/v") == 2)
        }
    }

    @Test func noCacheRevalidatesEveryTime() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/nc", .resource(TestResource(
                content: .bytes(Array("nc".utf8)), eTag: "\"n\"", headers: [("Cache-Control", "no-cache, max-age=3600")])))
            for _ in 0..<3 { #expect(try await harness.send("/nc").text == "nc") }
            let requests = harness.origin.requests(path: "/nc")
            #expect(requests.count == 3)
            #expect(requests.dropFirst().allSatisfy { $0.header("If-None-Match") == "\"n\"" })
            harness.origin.setRoute("/fresh", .response(TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .text("f"))))
            _ = try await harness.send("/fresh")
            _ = try await harness.send("/fresh", headers: [("Cache-Control", "no-cache")])
            #expect(harness.origin.requestCount(path: "/fresh") == 2)
        }
    }

    @Test func unsafeMethodsPassThroughAndInvalidate() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/item", .handler { request in
                if request.method == "POST" {
                    return TestResponse(status: 201, headers: [("Location", "/item/7")], body: .text("created"))
                }
                return TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .text("item v\(request.sequenceNumber)"))
            })
            harness.origin.setRoute("/item/7", .response(TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .text("seven"))))
            #expect(try await harness.send("/item").text == "item v1")
            #expect(try await harness.send("/item").text == "item v1")
            _ = try await harness.send("/item/7")
            let posted = try await harness.send("/item", method: .POST, body: Array("new".utf8))
            #expect(posted.status == 201)
            #expect(posted.text == "created")
            #expect(harness.origin.requests(path: "/item").last?.method == "POST")
            // the POST invalidated /item and its Location
            #expect(try await harness.send("/item").text == "item v3")
            _ = try await harness.send("/item/7")
            #expect(harness.origin.requestCount(path: "/item/7") == 2)
        }
    }

    @Test func statusesAndRedirectsArePassedOn() async throws {
        try await Self.withProxy { harness in
            // a redirect with explicit freshness is stored (without it, and without Last-Modified, it is stale at once)
            harness.origin.setRoute("/moved", .response(TestResponse(
                status: 301, headers: [("Location", "/elsewhere"), ("Cache-Control", "max-age=3600")])))
            harness.origin.setRoute("/teapot", .response(TestResponse(status: 418, body: .text("short and stout"))))
            harness.origin.setRoute("/down", .response(TestResponse(status: 503, headers: [("Retry-After", "5")], body: .text("maintenance"))))
            let moved = try await harness.send("/moved")
            #expect(moved.status == 301)
            #expect(moved.header("Location") == "/elsewhere")
            _ = try await harness.send("/moved")
            #expect(harness.origin.requestCount(path: "/moved") == 1)
            #expect(harness.origin.requestCount(path: "/elsewhere") == 0)
            let teapot = try await harness.send("/teapot")
            #expect(teapot.status == 418)
            #expect(teapot.text == "short and stout")
            let down = try await harness.send("/down")
            #expect(down.status == 503)
            #expect(down.text == "maintenance")
            #expect(down.header("Retry-After") == "5")
            let missing = try await harness.send("/nowhere")
            #expect(missing.status == 404)
            // the service's own paths stay the service's
            #expect(try await harness.send("/healthz").status == 200)
        }
    }

    @Test func rangesAndConditionsAreAnsweredFromTheStoredResponse() async throws {
        try await Self.withProxy { harness in
            harness.origin.setRoute("/doc", .resource(TestResource(
                content: .bytes(Array("abcdefghij".utf8)), eTag: "\"d\"", headers: freshForAnHour)))
            let range = try await harness.send("/doc", headers: [("Range", "bytes=3-5")])
            #expect(range.status == 206)
            #expect(range.text == "def")
            let notModified = try await harness.send("/doc", headers: [("If-None-Match", "\"d\"")])
            #expect(notModified.status == 304)
            let requests = harness.origin.requests(path: "/doc")
            #expect(requests.count == 1)
            #expect(requests[0].header("Range") == nil)
        }
    }
}
