import AssetLoading
import AssetPipeline
import AssetStorage
import Synchronization

/// What a URL's cache key and kind are, remembered for the URLs seen last: the hot path asks for
/// them on every request, and working them out parses the URL.
final class CacheKeyMemo: Sendable {
    static let shared = CacheKeyMemo()
    static let capacity = 16_384

    /// A URL's loader cache key and the kind its extension suggests.
    struct Entry: Sendable {
        let key: String
        let kind: AssetKind?
    }

    private let entries = Mutex<[String: Entry]>([:])

    func entry(for url: String) -> Entry {
        if let entry = entries.withLock({ $0[url] }) { return entry }
        let entry = Entry(key: AssetLoader.defaultCacheKey(for: url), kind: KindSniffer.kind(ofPath: url))
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[url] = entry
        }
        return entry
    }

    func key(for url: String) -> String { entry(for: url).key }
}
