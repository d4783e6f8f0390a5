import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A scriptable HTTP/1.1 origin for tests, served by HummingbirdCore's HTTP/1 server on `127.0.0.1`, port chosen by the system.
///
/// Tell it what to answer per path with ``setRoute(_:_:)``; read what reached it with ``requestCount(path:)``
/// and ``requests``. Paths without a route answer 404 (and are counted too). Start it with
/// ``start(configuration:)`` and always ``stop()`` it, or use ``withTestOrigin(configuration:_:)``.
///
/// ```swift
/// try await withTestOrigin { origin in
///     origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"v1\"")))
///     // ... load origin.url("/a.png") ...
///     #expect(origin.requestCount(path: "/a.png") == 1)
/// }
/// ```
public final class TestOrigin: Sendable {
    /// How the origin starts.
    public struct Configuration: Sendable {
        /// The address to bind. Default `127.0.0.1`.
        public var host: String
        /// The port to bind; 0 lets the system choose. Default 0.
        public var port: Int
        /// The log level of the server's logger. Default `.warning`.
        public var logLevel: Logger.Level

        public init(host: String = "127.0.0.1", port: Int = 0, logLevel: Logger.Level = .warning) {
            self.host = host
            self.port = port
            self.logLevel = logLevel
        }
    }

    /// Errors of the origin.
    public struct Error: Swift.Error, CustomStringConvertible {
        private enum Code {
            case notListening
            case bodyCutShort
            case stopped
        }

        private let code: Code
        /// A human-readable explanation.
        public let message: String

        private init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        /// The server stopped, without an error, before it reported a bound port.
        static let notListening = Error(.notListening, "the test origin stopped before it was listening")
        /// Thrown inside the server to close a connection in the middle of a body, on purpose.
        static let bodyCutShort = Error(.bodyCutShort, "body cut short on purpose")
        /// Thrown inside the server when a stalled body is released by `stop()`.
        static let stopped = Error(.stopped, "the test origin stopped")

        public var description: String { "TestOrigin.Error: \(self.message)" }
    }

    /// The host the origin listens on.
    public let host: String
    /// The port the origin listens on.
    public let port: Int
    private let core: OriginCore
    private let serviceGroup: ServiceGroup
    private let runTask: Mutex<Task<Void, any Swift.Error>?>

    /// `http://HOST:PORT`, without a trailing slash.
    public var baseURL: String { "http://\(self.host):\(self.port)" }

    /// The absolute URL of `path` (which starts with `/`) on this origin.
    public func url(_ path: String) -> String { self.baseURL + path }
    /// ``url(_:)`` as a `URL`, for the API that names resources by `URL`.
    public func location(_ path: String) -> URL { URL(string: self.baseURL + path)! }

    private init(
        host: String,
        port: Int,
        core: OriginCore,
        serviceGroup: ServiceGroup,
        runTask: Task<Void, any Swift.Error>
    ) {
        self.host = host
        self.port = port
        self.core = core
        self.serviceGroup = serviceGroup
        self.runTask = Mutex(runTask)
    }

    /// Starts an origin and returns once it is listening.
    public static func start(configuration: Configuration = Configuration()) async throws -> TestOrigin {
        let core = OriginCore()
        var logger = Logger(label: "AssetTestSupport.TestOrigin")
        logger.logLevel = configuration.logLevel
        let portPromise = PortPromise()
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, _ in
                try await core.respond(to: request, writer: writer)
            },
            onServerRunning: { channel in
                portPromise.fulfil(channel.localAddress?.port)
            }
        )
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [server], gracefulShutdownSignals: [], logger: logger)
        )
        let runTask = Task {
            do {
                try await serviceGroup.run()
                portPromise.fulfil(nil)
            } catch {
                portPromise.fulfil(nil)
                throw error
            }
        }
        guard let port = await portPromise.value else {
            if case .failure(let error) = await runTask.result {
                throw error
            }
            throw Error.notListening
        }
        let origin = TestOrigin(
            host: configuration.host,
            port: port,
            core: core,
            serviceGroup: serviceGroup,
            runTask: runTask
        )
        return origin
    }

    /// Stops the origin: releases stalled bodies (closing their connections), shuts the server down
    /// gracefully and returns when it has stopped. Calling it again does nothing.
    public func stop() async {
        guard let task = self.runTask.withLock({ task in defer { task = nil }; return task }) else { return }
        self.core.stopSignal.open()
        await self.serviceGroup.triggerGracefulShutdown()
        _ = await task.result
    }

    // MARK: routes

    /// Sets (or replaces) what `path` answers.
    public func setRoute(_ path: String, _ route: TestRoute) {
        self.core.state.withLock { $0.routes[path] = route }
    }

    /// Removes the route of `path`; it answers 404 again.
    public func removeRoute(_ path: String) {
        self.core.state.withLock { $0.routes[path] = nil }
    }

    // MARK: request log

    /// How many requests reached `path` (any method).
    public func requestCount(path: String) -> Int {
        self.core.state.withLock { $0.counts[path] ?? 0 }
    }

    /// How many requests reached the origin.
    public var totalRequestCount: Int {
        self.core.state.withLock { $0.log.count }
    }

    /// Every request that reached the origin, in arrival order.
    public var requests: [RecordedRequest] {
        self.core.state.withLock { $0.log }
    }

    /// The requests that reached `path`, in arrival order.
    public func requests(path: String) -> [RecordedRequest] {
        self.core.state.withLock { $0.log.filter { $0.path == path } }
    }

    /// Returns once at least `count` requests have reached `path` since the start (or the last
    /// ``resetRequestLog()``), or when the calling task is cancelled.
    public func waitForRequests(path: String, count: Int) async {
        await self.core.waitForRequests(path: path, count: count)
    }

    /// Returns once at least `count` requests have reached the origin, or when the calling task is cancelled.
    public func waitForRequests(count: Int) async {
        await self.core.waitForRequests(path: nil, count: count)
    }

    /// Forgets the request log and counts. Routes stay; ``TestRoute/sequence(_:)`` routes start again at
    /// their first answer.
    public func resetRequestLog() {
        self.core.state.withLock {
            $0.log.removeAll()
            $0.counts.removeAll()
        }
    }
}

/// Runs `body` with a started origin, and stops the origin afterwards, also when `body` throws.
public func withTestOrigin<Result>(
    configuration: TestOrigin.Configuration = TestOrigin.Configuration(),
    _ body: (TestOrigin) async throws -> Result
) async throws -> Result {
    let origin = try await TestOrigin.start(configuration: configuration)
    do {
        let result = try await body(origin)
        await origin.stop()
        return result
    } catch {
        await origin.stop()
        throw error
    }
}
