import Foundation
import AssetStorage

/// What to load: a URL, the kind of asset, where the answer may come from, and extra request fields.
public struct AssetRequest: Sendable {
    /// The absolute URL: `http`, `https` or `file`.
    public var url: URL {
        didSet { address = url.absoluteString }
    }
    /// ``url`` as a string, made once: the form the loader keys, logs and sends.
    package private(set) var address: String
    /// The kind of asset; it picks the maximum body size. Default `AssetKind.raw`.
    public var kind: AssetKind
    /// The cache key, or nil for the normalized URL (``AssetLoader/defaultCacheKey(for:)``). Supply one
    /// to share an entry between URLs, for example to drop a signed query string.
    public var cacheKey: String?
    /// Where the answer may come from. Default ``CacheStrategy/useProtocolCachePolicy``.
    public var strategy: CacheStrategy
    /// Request header fields sent to the origin and matched against a stored response's `Vary`. Request
    /// cache directives go in `Cache-Control` (`max-age`, `max-stale`, `min-fresh`, `no-cache`,
    /// `only-if-cached`...); see ``init(url:kind:cacheKey:strategy:headers:cacheControl:followRedirects:acceptsAnyStatus:)``.
    public var headers: HeaderFields
    /// Follow `301`, `302`, `303`, `307` and `308` (checked against the destination policy, up to
    /// the configured limit). False passes a redirect on as the answer (a reverse proxy). Default true.
    public var followRedirects: Bool
    /// Answer with any final status the origin sends, stored when HTTP caching allows it (a `404`,
    /// a `301`...), instead of throwing ``LoaderError/http(_:)``; a `5xx` still throws, with the origin's
    /// answer as an ``OriginErrorResponse`` in ``LoaderError/underlying``. Stored answers other than
    /// `200` and `203` are used only by requests that set this. Default false.
    public var acceptsAnyStatus: Bool

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: the absolute URL: `http`, `https` or `file`.
    ///   - kind: the kind of asset; it picks the maximum body size. Default `AssetKind.raw`.
    ///   - cacheKey: the cache key, or nil (the default) for the normalized URL.
    ///   - strategy: where the answer may come from. Default ``CacheStrategy/useProtocolCachePolicy``.
    ///   - headers: request header fields sent to the origin. Default none.
    ///   - cacheControl: request cache directives, such as `"max-stale=60"` or `"only-if-cached"`,
    ///     added to `headers` as a `Cache-Control` field. Default none.
    ///   - followRedirects: whether redirects are followed (see ``followRedirects``). Default true.
    ///   - acceptsAnyStatus: whether any final status is an answer (see ``acceptsAnyStatus``).
    ///     Default false.
    public init(
        url: URL,
        kind: AssetKind = .raw,
        cacheKey: String? = nil,
        strategy: CacheStrategy = .useProtocolCachePolicy,
        headers: HeaderFields = HeaderFields(),
        cacheControl: String? = nil,
        followRedirects: Bool = true,
        acceptsAnyStatus: Bool = false
    ) {
        self.url = url
        self.address = url.absoluteString
        self.kind = kind
        self.cacheKey = cacheKey
        self.strategy = strategy
        self.headers = headers
        self.followRedirects = followRedirects
        self.acceptsAnyStatus = acceptsAnyStatus
        if let cacheControl {
            self.headers.append(name: "Cache-Control", value: cacheControl)
        }
    }
}

extension AssetRequest {
    /// The URL spelled `address`, for the faces that read URLs as text (a list line, a query
    /// parameter): a URL's own text comes back unchanged from `absoluteString`, so the cache key is
    /// the one the text names.
    ///
    /// - Throws: ``LoaderError/invalidURL`` when the text is no URL.
    package static func location(_ address: String) throws -> URL {
        guard let url = URL(string: address) else { throw LoaderError.invalidURL.with(message: "not a URL: \(address)") }
        return url
    }
}
