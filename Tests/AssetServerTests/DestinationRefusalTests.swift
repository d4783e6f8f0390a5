import AssetLoading
import AssetTestSupport
import Foundation
import Testing

/// End-to-end refusals of destinations on this machine, spelt in the ways that slip past string
/// checks. Every address here is a loopback one: nothing leaves the machine.
@Suite("Destination refusals")
struct DestinationRefusalTests {
    /// A server without `allowPrivate` whose configured origin (the test origin, trusted) is the only
    /// loopback destination it may reach.
    static func withGuardedServer(_ body: (ServerHarness) async throws -> Void) async throws {
        try await ServerHarness.with({ configuration, origin in
            configuration.allowPrivate = false
            configuration.origin = origin.baseURL
        }) { harness in
            harness.origin.setRoute("/a", .resource(TestResource(content: .bytes(Array("secret".utf8)), headers: freshForAnHour)))
            try await body(harness)
        }
    }

    @Test func loopbackSpellingsAreRefused() async throws {
        try await Self.withGuardedServer { harness in
            let port = harness.origin.port
            let spellings = [
                "localhost", "LocalHost", "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.2", "[::1]",
                "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "0.0.0.0", "0",
            ]
            for host in spellings {
                for endpoint in ["asset", "image", "lottie"] {
                    let url = "http://\(host):\(port)/a"
                    let answer = try await harness.send("/v1/\(endpoint)?url=\(ServerHarness.encode(url))")
                    #expect(answer.status == 403, "\(endpoint) \(url)")
                    #expect(answer.errorCode == "forbidden_destination", "\(endpoint) \(url)")
                }
                let video = try await harness.send("/v1/asset?kind=video&url=\(ServerHarness.encode("http://\(host):\(port)/a"))")
                #expect(video.status == 403, "video \(host)")
            }
            #expect(harness.origin.requestCount(path: "/a") == 0)
            let trusted = try await harness.send(harness.endpoint("asset", originPath: "/a"))
            #expect(trusted.status == 200)
            #expect(trusted.text == "secret")
        }
    }

    @Test func redirectsToLoopbackAreRefused() async throws {
        try await Self.withGuardedServer { harness in
            let port = harness.origin.port
            harness.origin.setRoute("/hop1", .redirect(to: "http://localhost:\(port)/a"))
            harness.origin.setRoute("/hop2", .redirect(to: "http://127.1:\(port)/a", status: 301))
            harness.origin.setRoute("/hop3", .redirect(to: "http://[::1]:\(port)/a", status: 307))
            harness.origin.setRoute("/fine", .redirect(to: "/a", status: 302))
            for path in ["/hop1", "/hop2", "/hop3"] {
                let answer = try await harness.send(harness.endpoint("asset", originPath: path))
                #expect(answer.status == 403, "\(path)")
                #expect(answer.errorCode == "forbidden_destination")
                #expect(harness.origin.requestCount(path: path) == 1)
            }
            #expect(harness.origin.requestCount(path: "/a") == 0)
            let followed = try await harness.send(harness.endpoint("asset", originPath: "/fine"))
            #expect(followed.status == 200)
            #expect(followed.text == "secret")
        }
    }

    @Test func allowedHostsRestrictDestinations() async throws {
        try await ServerHarness.with({ configuration, _ in
            configuration.allowedHosts = [HostPattern("localhost")!]
        }) { harness in
            harness.origin.setRoute("/a", .resource(TestResource(content: .bytes(Array("x".utf8)), headers: freshForAnHour)))
            let refused = try await harness.send(harness.endpoint("asset", originPath: "/a"))
            #expect(refused.status == 403)
            let allowed = try await harness.send("/v1/asset?url=\(ServerHarness.encode("http://localhost:\(harness.origin.port)/a"))")
            #expect(allowed.status == 200)
        }
    }
}
