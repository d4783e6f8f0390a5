import AssetStorage

/// What to load: a URL, the kind of asset, where the answer may come from, and extra request fields.
public struct AssetRequest: Sendable {
    /// The absolute URL: `http`, `https` or `file`.
    public var url: String
    /// The kind of asset; it picks the maximum body size. Default ``AssetKind/raw``.
    public var kind: AssetKind
    /// The cache key, or nil for the normalized URL (``AssetLoader/defaultCacheKey(for:)``). Supply one
    /// to share an entry between URLs, for example to drop a signed query string.
    public var cacheKey: String?
    /// Where the answer may come from. Default ``CacheStrategy/useProtocolCachePolicy``.
    public var strategy: CacheStrategy
    /// Request header fields sent to the origin and matched against a stored response's `Vary`. Request
    /// cache directives go in `Cache-Control` (`max-age`, `max-stale`, `min-fresh`, `no-cache`,
    /// `only-if-cached`...); see ``init(url:kind:cacheKey:strategy:headers:cacheControl:)``.
    public var headers: HeaderFields

    /// Creates a request.
    ///
    /// - Parameter cacheControl: request cache directives, such as `"max-stale=60"` or `"only-if-cached"`,
    ///   added to `headers` as a `Cache-Control` field.
    public init(
        url: String,
        kind: AssetKind = .raw,
        cacheKey: String? = nil,
        strategy: CacheStrategy = .useProtocolCachePolicy,
        headers: HeaderFields = HeaderFields(),
        cacheControl: String? = nil
    ) {
        self.url = url
        self.kind = kind
        self.cacheKey = cacheKey
        self.strategy = strategy
        self.headers = headers
        if let cacheControl {
            self.headers.append(name: "Cache-Control", value: cacheControl)
        }
    }
}
