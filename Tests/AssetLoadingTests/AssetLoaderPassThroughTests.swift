import AssetLoading
import AssetTestSupport
import Foundation
import Testing

/// The loader as a reverse proxy uses it: redirects and error statuses as answers.
@Suite("AssetLoader pass-through of statuses and redirects")
struct AssetLoaderPassThroughTests {
    @Test func redirectsAreAnswersWhenNotFollowed() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/from", .response(TestResponse(status: 301, headers: [("Location", "/to"), ("Cache-Control", "max-age=60")])))
            let request = AssetRequest(url: origin.location("/from"), followRedirects: false, acceptsAnyStatus: true)
            let first = try await harness.loader.load(request)
            #expect(first.status == 301)
            #expect(first.headers["Location"] == "/to")
            #expect(first.outcome == .downloaded)
            let second = try await harness.loader.load(request)
            #expect(second.outcome == .cached)
            #expect(second.status == 301)
            #expect(origin.requestCount(path: "/to") == 0)
            // without followRedirects false the redirect is an error status
            await #expect(throws: LoaderError.http(301)) {
                _ = try await harness.loader.load(AssetRequest(url: origin.location("/from"), followRedirects: false))
            }
        }
    }

    @Test func storedErrorStatusesAnswerOnlyRequestsThatAcceptThem() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/missing", .response(TestResponse(status: 404, headers: [("Cache-Control", "max-age=60")], body: .text("nope"))))
            let passing = AssetRequest(url: origin.location("/missing"), acceptsAnyStatus: true)
            let answer = try await harness.loader.load(passing)
            #expect(answer.status == 404)
            #expect(String(decoding: try await harness.loader.data(for: answer), as: UTF8.self) == "nope")
            #expect(try await harness.loader.load(passing).outcome == .cached)
            await #expect(throws: LoaderError.http(404)) {
                _ = try await harness.loader.load(AssetRequest(url: origin.location("/missing")))
            }
            #expect(origin.requestCount(path: "/missing") == 2)
        }
    }

    @Test func serverErrorsCarryTheOriginsAnswer() async throws {
        try await withOriginAndLoader({ $0.retry = AssetLoaderHarness.fastRetries(maxAttempts: 1) }) { origin, harness in
            origin.setRoute("/down", .response(TestResponse(status: 503, headers: [("Retry-After", "7")], body: .text("maintenance"))))
            do {
                _ = try await harness.loader.load(AssetRequest(url: origin.location("/down"), acceptsAnyStatus: true))
                Issue.record("a 503 must throw")
            } catch let error as LoaderError {
                #expect(error == .http(503))
                let answer = try #require(error.underlying as? OriginErrorResponse)
                #expect(answer.status == 503)
                #expect(answer.headers["Retry-After"] == "7")
                #expect(String(decoding: answer.body, as: UTF8.self) == "maintenance")
                #expect(!answer.bodyTruncated)
            }
        }
    }

    @Test func crossOriginRedirectsDropCredentials() async throws {
        try await withTestOrigin { other in
            try await withOriginAndLoader { origin, harness in
                origin.setRoute("/start", .redirect(to: other.url("/land")))
                other.setRoute("/land", .response(TestResponse(headers: [("Cache-Control", "max-age=60")], body: .text("landed"))))
                var request = AssetRequest(url: origin.location("/start"))
                request.headers.append(name: "Authorization", value: "Bearer secret")
                let answer = try await harness.loader.load(request)
                #expect(answer.status == 200)
                #expect(origin.requests(path: "/start").first?.header("Authorization") == "Bearer secret")
                #expect(other.requests(path: "/land").first?.header("Authorization") == nil)
            }
        }
    }
}
