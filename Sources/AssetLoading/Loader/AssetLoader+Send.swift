import AssetStorage
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// An origin's answer to ``send(_:deadline:followRedirects:kind:)``, after any redirects.
    public struct OriginResponse: Sendable {
        /// The final response; read or drop its body.
        public var response: HTTPClientResponse
        /// The URL that gave this answer: the request's, or the last redirect's target.
        public var url: String
        /// Redirects followed.
        public var redirects: Int
        /// Whether the tier or the origin answered.
        public var route: LoadRoute
    }

    /// The statuses whose `Location` is followed.
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// Sends one request to an origin, the single door every exchange of the loader and of the range
    /// reads goes through. A request without `User-Agent` gets `AssetPipelineVersion.productToken`.
    ///
    /// - With a ``Configuration/tier``, a `GET` or `HEAD` goes to the tier instead (without
    ///   `Authorization` and `Cookie`: the tier fetches on its own), and to the origin when the tier
    ///   fails, as its ``CacheTier/fallback`` says; `kind` tells the tier what the asset is.
    /// - Under ``Configuration/destinationPolicy``, the destination is checked before connecting
    ///   (host allowed, every resolved address allowed) and the connection goes to an address that
    ///   was checked; each redirect target is checked the same way.
    /// - With `followRedirects`, `301`, `302`, `303`, `307` and `308` are followed up to
    ///   ``Configuration/redirectLimit`` (``LoaderError/tooManyRedirects``); a target visited before
    ///   throws ``LoaderError/redirectLoop``; `Authorization` and `Cookie` are not sent to another
    ///   origin; a `303` (or a `301`/`302` to a `POST`) continues as a `GET`.
    ///
    /// Throws a ``LoaderError``.
    public func send(
        _ request: HTTPClientRequest, deadline: NIODeadline, followRedirects: Bool = true, kind: AssetKind? = nil
    ) async throws -> OriginResponse {
        // an s3:// object is read from the store itself, not through the tier (whose nodes would need the
        // credentials and the bucket allowed)
        guard let tier = self.configuration.tier, request.method == .GET || request.method == .HEAD, !tier.owns(request.url),
            !S3Location.isS3(request.url)
        else {
            return try await self.sendToOrigin(request, deadline: deadline, followRedirects: followRedirects)
        }
        var viaTier = request
        viaTier.url = tier.assetURL(for: request.url, kind: kind)
        viaTier.headers.remove(name: "Authorization")
        viaTier.headers.remove(name: "Cookie")
        let reason: String
        do {
            let answer = try await self.sendToOrigin(viaTier, deadline: deadline, followRedirects: false)
            let status = answer.response.status.code
            if status < 500 {
                self.metrics.recordTier("answered")
                let node = answer.response.headers.first(name: "X-Assetpipe-Node")
                return OriginResponse(response: answer.response, url: request.url, redirects: 0, route: .tier(node: node))
            }
            await Self.drain(answer.response)
            reason = "the tier answered \(status)"
        } catch let error as LoaderError where error != .cancelled && error != .shutdown {
            reason = error.message
        }
        self.logger.debug("tier failed", metadata: ["url": "\(request.url)", "reason": "\(reason)", "fallback": "\(tier.fallback)"])
        guard tier.fallback == .origin else {
            self.metrics.recordTier("failed")
            throw LoaderError.connection.with(message: "the tier at \(tier.baseURL) failed and falls back to nothing: \(reason)")
        }
        self.metrics.recordTier("fell_back")
        var answer = try await self.sendToOrigin(request, deadline: deadline, followRedirects: followRedirects)
        answer.route = .originAfterTierFailure(reason: reason)
        return answer
    }

    /// ``send(_:deadline:followRedirects:kind:)`` without the tier.
    private func sendToOrigin(_ request: HTTPClientRequest, deadline: NIODeadline, followRedirects: Bool) async throws -> OriginResponse {
        var current = request
        if !current.headers.contains(name: "User-Agent") {
            current.headers.add(name: "User-Agent", value: AssetPipelineVersion.productToken)
        }
        var visited: Set<String> = [Self.defaultCacheKey(for: request.url)]
        var redirects = 0
        do {
            while true {
                let response = try await self.sendOnce(current, deadline: deadline)
                guard followRedirects, Self.redirectStatuses.contains(response.status.code),
                    let location = response.headers.first(name: "Location")
                else {
                    return OriginResponse(response: response, url: current.url, redirects: redirects, route: .origin)
                }
                await Self.drain(response)
                guard redirects < self.configuration.redirectLimit else {
                    throw LoaderError.tooManyRedirects.with(
                        message: "more than \(self.configuration.redirectLimit) redirects from \(request.url)")
                }
                guard let next = Self.redirectTarget(location, from: current.url) else {
                    throw LoaderError.invalidURL.with(message: "\(current.url) redirects to an unusable Location: \(location)")
                }
                guard visited.insert(Self.defaultCacheKey(for: next)).inserted else {
                    throw LoaderError.redirectLoop.with(message: "\(current.url) redirects back to \(next)")
                }
                if Self.origin(of: next) != Self.origin(of: current.url) {
                    current.headers.remove(name: "Authorization")
                    current.headers.remove(name: "Cookie")
                }
                if response.status == .seeOther || (current.method == .POST && response.status.code <= 302) {
                    current.method = .GET
                    current.body = nil
                }
                current.url = next
                redirects += 1
            }
        } catch {
            throw LoaderError.mapping(error)
        }
    }

    /// Refuses a URL whose port is outside 1...65535 as ``LoaderError/invalidURL`` (the HTTP client
    /// would trap converting it to a socket address): a list line, a query parameter or a
    /// redirect's `Location` may name any number.
    static func checkPort(of url: String) throws {
        guard let port = URL(string: url)?.port else { return }
        guard (1...65_535).contains(port) else {
            throw LoaderError.invalidURL.with(message: "the port \(port) is not a TCP port (1 to 65535)")
        }
    }

    /// One exchange, no redirect followed, with the destination checked first under a policy.
    private func sendOnce(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        if S3Location.isS3(request.url) {
            return try await self.sendToS3(request, deadline: deadline)
        }
        try Self.checkPort(of: request.url)
        // the tier is the operator's own, not a destination a client chose
        guard let policy = self.configuration.destinationPolicy, self.configuration.tier?.owns(request.url) != true else {
            return try await self.clients.shared.execute(request, deadline: deadline, logger: self.logger)
        }
        guard let components = URLComponents(string: request.url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw LoaderError.invalidURL.with(message: "not an http or https URL with a host: \(request.url)")
        }
        let name = DestinationPolicy.bare(host).lowercased()
        guard policy.allowsHost(name) else {
            throw LoaderError.forbiddenDestination.with(message: "the host \(name) is not an allowed host")
        }
        let authority = DestinationPolicy.authority(host: name, port: components.port ?? (scheme == "https" ? 443 : 80))
        if let literal = IPAddress(legacyIPv4: name) {
            // nothing to resolve: the client connects to this very address
            if let refusal = policy.refusal(of: [literal], authority: authority) {
                throw LoaderError.forbiddenDestination.with(message: "refused \(request.url): \(refusal)")
            }
            return try await self.clients.shared.execute(request, deadline: deadline, logger: self.logger)
        }
        if policy.allowPrivate || policy.trustedAuthorities.contains(authority) {
            return try await self.clients.shared.execute(request, deadline: deadline, logger: self.logger)
        }
        let addresses: [IPAddress]
        if let cached = self.clients.cachedAddresses(of: name) {
            addresses = cached
        } else {
            addresses = try await self.runIO { () throws(LoaderError) -> [IPAddress] in try HostResolution.addresses(of: name) }
            if policy.refusal(of: addresses, authority: authority) == nil {
                self.clients.remember(addresses, of: name, lifetime: policy.resolutionLifetime)
            }
        }
        if let refusal = policy.refusal(of: addresses, authority: authority) {
            throw LoaderError.forbiddenDestination.with(message: "refused \(request.url): \(name) resolves to \(refusal)")
        }
        return try await self.clients.withPinnedClient(host: name, address: addresses[0]) { client in
            try await client.execute(request, deadline: deadline, logger: self.logger)
        }
    }

    /// The absolute http(s) URL a `Location` value names, resolved against `base`.
    static func redirectTarget(_ location: String, from base: String) -> String? {
        guard let baseURL = URL(string: base), let target = URL(string: location, relativeTo: baseURL)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else { return nil }
        return target.absoluteString
    }

    /// `scheme://host:port` of a URL, lowercased, for deciding whether a redirect leaves the origin.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        let scheme = components.scheme?.lowercased() ?? ""
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(components.host?.lowercased() ?? ""):\(port)"
    }

    /// Reads and drops a small body so that the connection can be reused; a larger one closes it.
    static func drain(_ response: HTTPClientResponse) async {
        _ = try? await response.body.collect(upTo: Self.errorBodyDrainLimit)
    }
}
