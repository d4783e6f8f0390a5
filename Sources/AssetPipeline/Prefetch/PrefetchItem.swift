import AssetStorage
import Foundation

/// One asset to prefetch from Swift: its URL and, when known, its kind (without one, the kind is
/// guessed from the response, as for a list line without a kind column).
public struct PrefetchItem: Sendable, Hashable {
    /// The `http` or `https` URL to fetch.
    public var url: URL
    /// The kind of asset, or nil to guess it.
    public var kind: AssetKind?

    /// Creates an item.
    public init(url: URL, kind: AssetKind? = nil) {
        self.url = url
        self.kind = kind
    }

    /// The item as a prefetch list line: `URL` or `URL<TAB>KIND` (a URL's text holds no tab or
    /// line break: `URL` percent-encodes them).
    var line: String {
        guard let kind else { return url.absoluteString }
        return "\(url.absoluteString)\t\(kind.rawValue)"
    }
}

extension Prefetcher {
    /// Runs `items` as a list (see ``run(_:onResult:)-(PrefetchListFeed,_)``): duplicates fetched
    /// once, results numbered by their place in `items` from 1, the summary returned.
    public func run(_ items: [PrefetchItem], onResult: @escaping @Sendable (PrefetchResult) -> Void) async -> PrefetchSummary {
        await run(PrefetchListFeed(items: items), onResult: onResult)
    }
}
