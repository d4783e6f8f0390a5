import AssetTestSupport
import AsyncHTTPClient
import NIOCore
import Testing

/// Gates and waits are checked, not speed: the limits leave room for the minutes-long stalls of the
/// test process's loopback servers in the full parallel run on 2 cores (2026-11-29: this suite's
/// first test ended at 210 s against a 60 s limit, with dozens of unrelated tests finishing then).
@Suite("TestOrigin gates and request waits", .timeLimit(.minutes(5)))
struct TestOriginGateTests {
    @Test func gateHoldsAnswersUntilOpened() async throws {
        try await withTestOrigin { origin in
            let gate = TestGate()
            origin.setRoute("/held", .response(TestResponse(body: .text("released"), gate: gate)))
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.url("/held")), timeout: .seconds(240))
                        return String(buffer: try await response.body.collect(upTo: 1024))
                    }
                }
                // every request is at the origin and none has been answered
                await origin.waitForRequests(path: "/held", count: 5)
                #expect(origin.requestCount(path: "/held") == 5)
                #expect(!gate.isOpen)
                gate.open()
                var bodies: [String] = []
                for try await body in group { bodies.append(body) }
                return bodies
            }
            #expect(bodies == Array(repeating: "released", count: 5))
        }
    }

    @Test func stopReleasesAHeldAnswer() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/held", .response(TestResponse(body: .text("never"), gate: TestGate())))
        let outcome = Task {
            try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.url("/held")), timeout: .seconds(30))
        }
        await origin.waitForRequests(count: 1)
        await origin.stop()
        await #expect(throws: (any Error).self) {
            _ = try await outcome.value
        }
    }

    @Test func waitForRequestsReturnsAtOnceWhenAlreadySatisfied() async throws {
        try await withTestOrigin { origin in
            _ = try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.url("/x")), timeout: .seconds(240))
            await origin.waitForRequests(path: "/x", count: 1)
            await origin.waitForRequests(count: 1)
            #expect(origin.requestCount(path: "/x") == 1)
        }
    }
}

@Suite("TestOrigin start-up")
struct TestOriginStartTests {
    @Test func portInUseFailsToStart() async throws {
        _ = try await withTestOrigin { first in
            await #expect(throws: (any Error).self) {
                let second = try await TestOrigin.start(configuration: .init(port: first.port))
                await second.stop()
            }
        }
    }
}
