import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// A loader over a disk cache in a fresh temporary directory, with fast retries.
struct AssetLoaderHarness {
    let directory: URL
    let cache: DiskCache
    let loader: AssetLoader

    static func fastRetries(maxAttempts: Int = 3) -> AssetLoader.RetryPolicy {
        AssetLoader.RetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(20), maxRetryAfter: .milliseconds(50))
    }

    init(_ configure: (inout AssetLoader.Configuration) -> Void = { _ in }) throws {
        self.directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("AssetLoaderTests-\(UUID().uuidString)", isDirectory: true)
        self.cache = try DiskCache(directory: self.directory)
        var configuration = AssetLoader.Configuration(retry: Self.fastRetries())
        configure(&configuration)
        var logger = Logger(label: "AssetLoaderTests")
        logger.logLevel = .critical
        self.loader = AssetLoader(diskCache: self.cache, configuration: configuration, logger: logger)
    }

    func close() async throws {
        try await self.loader.shutdown()
        self.cache.close()
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// The `.tmp` files left in the cache's temporary folder.
    var temporaryFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: self.directory.appendingPathComponent("tmp").path)) ?? []
    }
}

/// Runs `body` with a started origin and a loader, closing both afterwards.
func withOriginAndLoader<Result>(
    _ configure: (inout AssetLoader.Configuration) -> Void = { _ in },
    _ body: (TestOrigin, AssetLoaderHarness) async throws -> Result
) async throws -> Result {
    let harness = try AssetLoaderHarness(configure)
    do {
        let result = try await withTestOrigin { origin in try await body(origin, harness) }
        try await harness.close()
        return result
    } catch {
        try? await harness.close()
        throw error
    }
}

/// A gate an origin handler waits at until the test opens it.
final class AssetLoaderTestGate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceed = self.state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiters = self.state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

extension AssetLoader {
    /// Loads `url` and returns the response with its body bytes.
    func loadBytes(_ request: AssetRequest) async throws -> (AssetResponse, [UInt8]) {
        let response = try await self.load(request)
        let data = try await self.data(for: response)
        return (response, Array(data))
    }
}

/// Waits (yielding, not sleeping) until `condition` holds; records an issue if it never does.
func yieldUntil(_ condition: () -> Bool) async {
    for _ in 0..<50_000_000 {
        if condition() { return }
        await Task.yield()
    }
    Issue.record("the condition never held")
}
