import AssetPipeline
import AssetStorage
import AssetTestSupport
import Crypto
import Foundation
import Synchronization
import Testing

/// A loopback origin, a manager over a fresh directory and a ``VideoUtil`` for the video tests.
struct VideoHarness {
    let origin: TestOrigin
    let manager: AssetsManager
    let video: VideoUtil
    let directory: URL

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/video")

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func sha256(_ bytes: some DataProtocol) -> String {
        SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    /// Starts the origin and opens a manager whose chunk store cuts `chunkSize` chunks under `budget`.
    static func start(
        chunkSize: Int = 64 << 10, budget: Int64 = 1 << 30, maxChunksPerRequest: Int = 64, readAheadChunks: Int = 2
    ) async throws -> VideoHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = AssetsManager.Configuration(directory: directory)
        configuration.chunks.chunkSize = chunkSize
        configuration.chunks.maxBytes = budget
        let manager = try await AssetsManager.open(configuration: configuration)
        let origin = try await TestOrigin.start()
        let video = VideoUtil(manager: manager, configuration: .init(maxChunksPerRequest: maxChunksPerRequest, readAheadChunks: readAheadChunks))
        return VideoHarness(origin: origin, manager: manager, video: video, directory: directory)
    }

    /// Serves `resource` at `path` through a route that counts requests and body bytes and can
    /// swap the resource (a new version).
    func serve(_ path: String, _ resource: TestResource, delay: Duration? = nil) -> ServedResource {
        let served = ServedResource(resource)
        origin.setRoute(path, .handler { request in
            if let delay { try await Task.sleep(for: delay) }
            return served.answer(request)
        })
        return served
    }

    func url(_ path: String) -> URL { origin.location(path) }

    func stop() async throws {
        try await manager.shutdown()
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The bytes of chunk files on disk under the chunk directory.
    func chunkBytesOnDisk() throws -> Int64 {
        let root = manager.configuration.chunks.directory
        var total: Int64 = 0
        for folder in try FileManager.default.contentsOfDirectory(atPath: root.path) where folder.count == 64 {
            for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) where file.hasSuffix(".chunk") {
                let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(folder).appendingPathComponent(file).path)
                total += (attributes[.size] as? Int64) ?? Int64((attributes[.size] as? Int) ?? 0)
            }
        }
        return total
    }
}

/// A resource behind a counting route; ``replace(_:)`` makes the next requests see a new version.
final class ServedResource: Sendable {
    private struct State {
        var resource: TestResource
        var requests: [RecordedRequest] = []
        var bodyBytes = 0
        var override: (@Sendable (RecordedRequest) -> TestResponse?)?
    }
    private let state: Mutex<State>

    init(_ resource: TestResource) { state = Mutex(State(resource: resource)) }

    func answer(_ request: RecordedRequest) -> TestResponse {
        state.withLock { s in
            s.requests.append(request)
            let response = s.override?(request) ?? s.resource.response(to: request)
            s.bodyBytes += response.body.declaredLength ?? 0
            return response
        }
    }

    func replace(_ resource: TestResource) { state.withLock { $0.resource = resource } }
    /// Answers requests with `answer` where it returns a response (a cut-short body...).
    func override(_ answer: (@Sendable (RecordedRequest) -> TestResponse?)?) { state.withLock { $0.override = answer } }

    var requests: [RecordedRequest] { state.withLock { $0.requests } }
    var requestCount: Int { state.withLock { $0.requests.count } }
    /// Body bytes announced by the answers so far.
    var bodyBytes: Int { state.withLock { $0.bodyBytes } }
}

/// A `Range: bytes=a-b` request header as a half-open range.
func requestedRange(_ request: RecordedRequest) -> Range<Int64>? {
    guard let value = request.header("Range"), value.hasPrefix("bytes=") else { return nil }
    let parts = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let first = Int64(parts[0]), let last = Int64(parts[1]) else { return nil }
    return first..<(last + 1)
}
