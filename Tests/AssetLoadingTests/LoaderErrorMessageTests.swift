import AssetLoading
import AssetTestSupport
import Foundation
import Testing

@Suite("LoaderError messages")
struct LoaderErrorMessageTests {
    /// Whether every `(` is closed by a later `)` and no `)` comes without its `(`.
    static func isBalanced(_ text: String) -> Bool {
        var depth = 0
        for character in text {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }

    static func occurrences(of part: String, in text: String) -> Int {
        text.components(separatedBy: part).count - 1
    }

    @Test func aRefusedConnectionSaysSoOnceWithBalancedParentheses() async throws {
        let origin = try await TestOrigin.start()
        let url = origin.location("/gone")
        await origin.stop()
        let harness = try AssetLoaderHarness { $0.retry = .none }
        defer { Task { try? await harness.close() } }
        let error = try await #require(throws: LoaderError.self) {
            _ = try await harness.loader.load(AssetRequest(url: url))
        }
        #expect(error == .connection)
        #expect(error.message == "the connection failed: Connection refused (errno 111)")
        #expect(error.description == "LoaderError.connection: " + error.message)
        #expect(Self.occurrences(of: "Connection refused", in: error.description) == 1)
        #expect(Self.isBalanced(error.description), "\(error.description)")
        #expect(error.underlying != nil)  // the cause is still there for code that wants it
    }

    @Test func timeoutsAndCutBodiesNameTheirCauseOnce() async throws {
        try await withOriginAndLoader({ $0.readTimeout = .milliseconds(200); $0.retry = .none }) { origin, harness in
            origin.setRoute("/stall", .response(TestResponse(body: .stall(prefix: [1, 2, 3], declaredLength: 100))))
            origin.setRoute("/short", .response(TestResponse(body: .truncated([1, 2, 3], declaredLength: 100))))
            for path in ["/stall", "/short"] {
                let error = try await #require(throws: LoaderError.self) {
                    _ = try await harness.loader.load(AssetRequest(url: origin.location(path)))
                }
                #expect(Self.isBalanced(error.description), "\(error.description)")
                #expect(!error.description.contains("HTTPClientError.HTTPClientError"))
                #expect(error.description.hasPrefix("LoaderError.\(error.shortDescription): "))
            }
        }
    }
}
