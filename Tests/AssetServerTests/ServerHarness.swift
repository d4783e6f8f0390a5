import AssetLoading
import AssetPipeline
import AssetServer
import AssetStorage
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// A loopback origin, a manager over a fresh directory and an ``AssetServer`` on `127.0.0.1:0`,
/// run in a `ServiceGroup` as `assetpipe serve` runs it, with an HTTP client that follows no
/// redirect and decompresses nothing.
final class ServerHarness: Sendable {
    let origin: TestOrigin
    let manager: AssetsManager
    let server: AssetServer
    let group: ServiceGroup
    let runTask: Task<Void, any Error>
    let client: HTTPClient
    let directory: URL
    let port: Int

    /// What one exchange with the server brought back.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first(name: name) }
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] {
            get throws { try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) }
        }
        /// The `code` of an error answer.
        var errorCode: String? {
            ((try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
        }
    }

    private init(origin: TestOrigin, manager: AssetsManager, server: AssetServer, group: ServiceGroup,
                 runTask: Task<Void, any Error>, client: HTTPClient, directory: URL, port: Int) {
        self.origin = origin
        self.manager = manager
        self.server = server
        self.group = group
        self.runTask = runTask
        self.client = client
        self.directory = directory
        self.port = port
    }

    /// Starts the origin and a server whose configuration `configure` adjusts (it starts with port 0
    /// and private destinations allowed, since the origin is on loopback).
    static func start(
        chunkSize: Int = 64 << 10, _ configure: (inout AssetServer.Configuration, TestOrigin) -> Void = { _, _ in }
    ) async throws -> ServerHarness {
        let origin = try await TestOrigin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = AssetServer.Configuration(port: 0, allowPrivate: true)
        configure(&configuration, origin)
        var managerConfiguration = AssetsManager.Configuration(directory: directory)
        var loader = AssetLoader.Configuration()
        loader.retry = AssetLoader.RetryPolicy(maxAttempts: 1)
        managerConfiguration.loader = configuration.loaderConfiguration(loader)
        managerConfiguration.chunks.chunkSize = chunkSize
        let manager = try await AssetsManager.open(configuration: managerConfiguration)
        var logger = Logger(label: "AssetServerTests")
        logger.logLevel = ProcessInfo.processInfo.environment["ASSETPIPE_TEST_LOG"] == nil ? .warning : .trace
        let server = AssetServer(manager: manager, configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
        let runTask = Task { try await group.run() }
        guard let port = await server.waitUntilListening() else {
            _ = await runTask.result
            throw CancellationError()
        }
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.decompression = .disabled
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 512
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        return ServerHarness(
            origin: origin, manager: manager, server: server, group: group, runTask: runTask, client: client,
            directory: directory, port: port)
    }

    /// Stops the server gracefully, then the manager and the origin; removes the directory.
    func stop() async throws {
        try await client.shutdown()
        await group.triggerGracefulShutdown()
        _ = try await runTask.value
        try await manager.shutdown()
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// `/v1/ENDPOINT?url=` with the origin's URL of `path` percent-encoded, plus `extra` query.
    func endpoint(_ name: String, originPath path: String, _ extra: String = "") -> String {
        "/v1/\(name)?url=\(Self.encode(origin.url(path)))\(extra)"
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends a request to the server (a path with its query) and collects the answer.
    func send(
        _ target: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: base + target)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Array(collected.readableBytesView))
    }

    /// Runs `body` with a started harness and stops it afterwards, also when `body` throws.
    static func with<T>(
        chunkSize: Int = 64 << 10, _ configure: (inout AssetServer.Configuration, TestOrigin) -> Void = { _, _ in },
        _ body: (ServerHarness) async throws -> T
    ) async throws -> T {
        let harness = try await start(chunkSize: chunkSize, configure)
        do {
            let result = try await body(harness)
            try await harness.stop()
            return result
        } catch {
            try? await harness.stop()
            throw error
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(relative)))
    }
}

/// A response fresh for an hour.
let freshForAnHour: [(String, String)] = [("Cache-Control", "max-age=3600")]
