import AssetStorage
import AssetTestSupport
import Foundation
import Testing

@testable import AssetLoading

@Suite("AssetLoader coalescing")
struct AssetLoaderCoalescingTests {
    @Test func hundredConcurrentLoadsMakeOneRequest() async throws {
        try await withOriginAndLoader { origin, harness in
            let gate = AssetLoaderTestGate()
            origin.setRoute("/one", .handler { _ in
                await gate.wait()
                return .ok("shared body", headers: [("Cache-Control", "max-age=3600")])
            })
            let loader = harness.loader
            let url = origin.location("/one")
            try await withThrowingTaskGroup(of: AssetResponse.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await loader.load(AssetRequest(url: url)) }
                }
                await yieldUntil { loader.inFlight.waiterCount == 100 }
                gate.open()
                var outcomes: [LoadOutcome] = []
                for try await response in group {
                    outcomes.append(response.outcome)
                    let sharedData = try await loader.data(for: response)
                    #expect(sharedData == Data("shared body".utf8))
                }
                #expect(outcomes.count == 100)
                #expect(outcomes.allSatisfy { $0 == .downloaded })
            }
            #expect(origin.requestCount(path: "/one") == 1)
            #expect(loader.inFlight.count == 0)
        }
    }

    @Test func aCancelledCallerDoesNotCancelTheOthers() async throws {
        try await withOriginAndLoader { origin, harness in
            let gate = AssetLoaderTestGate()
            origin.setRoute("/shared", .handler { _ in
                await gate.wait()
                return .ok("still here")
            })
            let loader = harness.loader
            let request = AssetRequest(url: origin.location("/shared"))
            let leaving = Task { try await loader.load(request) }
            let staying = Task { try await loader.load(request) }
            await yieldUntil { loader.inFlight.waiterCount == 2 }
            leaving.cancel()
            await #expect(throws: LoaderError.cancelled) {
                _ = try await leaving.value
            }
            gate.open()
            let response = try await staying.value
            #expect(response.outcome == .downloaded)
            let stayingData = try await loader.data(for: response)
            #expect(stayingData == Data("still here".utf8))
            #expect(origin.requestCount(path: "/shared") == 1)
        }
    }

    @Test func differentCacheKeysAreNotCoalesced() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/k", .response(.ok("k", headers: [("Cache-Control", "no-store")])))
            async let first = harness.loader.load(AssetRequest(url: origin.location("/k"), cacheKey: "one"))
            async let second = harness.loader.load(AssetRequest(url: origin.location("/k"), cacheKey: "two"))
            _ = try await (first, second)
            #expect(origin.requestCount(path: "/k") == 2)
        }
    }
}
