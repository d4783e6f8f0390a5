import AsyncHTTPClient
import Logging
import NIOCore
import Synchronization

/// The HTTP clients a loader sends with: one shared client, and under a ``DestinationPolicy`` one
/// client per checked host name pinned to the address that was checked (async-http-client's
/// `dnsOverride`), so that no second lookup can lead the connection elsewhere, and TLS still
/// verifies the name.
///
/// - Pinned clients are kept in a small LRU and reused while the host's checked addresses are
///   (``DestinationPolicy/resolutionLifetime``); an evicted client is shut down once no exchange
///   uses it.
/// - Host resolutions are cached for the same lifetime (at most ``resolutionCapacity`` hosts).
final class OriginClients: Sendable {
    /// The shared client (no override): what every exchange uses without a policy, and what
    /// connects to IP literals under one.
    let shared: HTTPClient
    private let template: HTTPClient.Configuration
    private let logger: Logger
    private let state = Mutex(State())

    static let pinnedCapacity = 64
    static let resolutionCapacity = 4_096

    private struct Pinned {
        var client: HTTPClient
        var users: Int
        var lastUse: UInt64
    }

    private struct Resolution {
        var addresses: [IPAddress]
        var expiry: ContinuousClock.Instant
    }

    private struct State {
        var pinned: [String: Pinned] = [:]
        var resolutions: [String: Resolution] = [:]
        var useCounter: UInt64 = 0
        var closed = false
    }

    init(configuration: HTTPClient.Configuration, logger: Logger) {
        self.template = configuration
        self.logger = logger
        self.shared = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration, backgroundActivityLogger: logger)
    }

    /// The cached addresses of `host`, if still within their lifetime.
    func cachedAddresses(of host: String) -> [IPAddress]? {
        let now = ContinuousClock.now
        return self.state.withLock { state in
            guard let resolution = state.resolutions[host], resolution.expiry > now else { return nil }
            return resolution.addresses
        }
    }

    /// Remembers the checked addresses of `host` for `lifetime`.
    func remember(_ addresses: [IPAddress], of host: String, lifetime: Duration) {
        let expiry = ContinuousClock.now + lifetime
        self.state.withLock { state in
            if state.resolutions.count >= Self.resolutionCapacity { state.resolutions.removeAll(keepingCapacity: true) }
            state.resolutions[host] = Resolution(addresses: addresses, expiry: expiry)
        }
    }

    /// Runs `body` with the client pinned to connect to `address` for `host`.
    func withPinnedClient<T>(host: String, address: IPAddress, _ body: (HTTPClient) async throws -> T) async throws -> T {
        let key = "\(host)|\(address)"
        let client = try self.checkOut(key: key, host: host, address: address)
        defer { self.checkIn(key: key) }
        return try await body(client)
    }

    private func checkOut(key: String, host: String, address: IPAddress) throws(LoaderError) -> HTTPClient {
        var evicted: [HTTPClient] = []
        let client = try self.state.withLock { state throws(LoaderError) -> HTTPClient in
            guard !state.closed else { throw LoaderError.shutdown }
            state.useCounter += 1
            if var entry = state.pinned[key] {
                entry.users += 1
                entry.lastUse = state.useCounter
                state.pinned[key] = entry
                return entry.client
            }
            var configuration = self.template
            configuration.dnsOverride = [DestinationPolicy.bare(host): address.description]
            let client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration, backgroundActivityLogger: self.logger)
            state.pinned[key] = Pinned(client: client, users: 1, lastUse: state.useCounter)
            while state.pinned.count > Self.pinnedCapacity,
                let idle = state.pinned.filter({ $0.value.users == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.pinned[idle.key] = nil
                evicted.append(idle.value.client)
            }
            return client
        }
        for old in evicted { Self.shutDownLater(old) }
        return client
    }

    private func checkIn(key: String) {
        self.state.withLock { state in
            state.pinned[key]?.users -= 1
        }
    }

    private static func shutDownLater(_ client: HTTPClient) {
        Task { try? await client.shutdown() }
    }

    /// Shuts every client down; later exchanges fail with ``LoaderError/shutdown``.
    func shutdown() async throws {
        let pinned = self.state.withLock { state -> [HTTPClient] in
            state.closed = true
            defer { state.pinned.removeAll() }
            return state.pinned.values.map(\.client)
        }
        for client in pinned { try? await client.shutdown() }
        try await self.shared.shutdown()
    }
}
