import AssetLoading
import Synchronization

/// The loader's default cache key of a URL, remembered for the URLs seen last: the hot path asks
/// for it on every request, and computing it parses the URL.
final class CacheKeyMemo: Sendable {
    static let shared = CacheKeyMemo()
    static let capacity = 16_384

    private let keys = Mutex<[String: String]>([:])

    func key(for url: String) -> String {
        if let key = keys.withLock({ $0[url] }) { return key }
        let key = AssetLoader.defaultCacheKey(for: url)
        keys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[url] = key
        }
        return key
    }
}
