/// Where a load may take its answer from.
public enum CacheStrategy: Sendable, Hashable {
    /// HTTP caching as a private cache does it (RFC 9111): fresh entries answer without a request, stale
    /// ones are revalidated, `no-store` is not stored, `stale-while-revalidate` and `stale-if-error` are
    /// honoured. The default.
    case useProtocolCachePolicy
    /// Always the network; the cache is not read (a storable answer is still stored).
    case networkOnly
    /// Only the cache, fresh or not; ``LoaderError/notCached`` when there is no entry.
    case cacheOnly
    /// The cached entry when there is one, fresh or not; else the network.
    case cacheFirst
    /// The network; when it fails (connection, timeout, 5xx) the cached entry, fresh or not.
    case networkFirst
    /// The network, but the cached entry if the network has not answered within `seconds` (the
    /// download goes on behind and is stored); with no cached entry, the network's answer.
    case cacheWithTimeout(seconds: Double)
    /// The cached entry at once (fresh or not), and the network behind it: the refreshed answer is
    /// stored, and ``AssetLoader/updates(for:)`` reports it after the cached one. With no cached entry,
    /// the network's answer.
    case cacheAndNetwork
}
