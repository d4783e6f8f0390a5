import AssetImaging
import AssetLoading

extension Prefetcher {
    /// The `Accept` fields of the browsers whose answers a `format=auto` variant is warmed for, and
    /// the formats each takes: one that takes AVIF, one that takes WebP only, one that takes neither.
    static let warmedAcceptClasses: [(accept: String, formats: [OutputFormat])] = [
        ("image/avif,image/webp,image/apng,image/*,*/*;q=0.8", [.avif, .webp, .jpeg, .png]),
        ("image/webp,image/*,*/*;q=0.8", [.webp, .jpeg, .png]),
        ("image/*,*/*;q=0.8", [.jpeg, .png]),
    ]

    /// Makes every configured variant of the image at `url` (or has the tier node make it); returns
    /// how many were made or warmed.
    func warmVariants(of url: String) async throws -> Int {
        let location = try AssetRequest.location(url)
        var count = 0
        for transform in configuration.variants {
            let auto = transform.format == .auto
            if configuration.warmsTierOnly {
                let query = transform.canonicalText == "original" ? "format=auto" : transform.canonicalText.replacingOccurrences(of: ",", with: "&")
                for accept in auto ? Self.warmedAcceptClasses.map(\.accept) : [nil] {
                    _ = try await manager.loader.warmTierVariant(for: location, imageQuery: query, accept: accept)
                    count += 1
                }
            } else {
                for accepted in auto ? Self.warmedAcceptClasses.map(\.formats) : [nil] {
                    _ = try await images.variant(for: location, transform: transform, accepting: accepted, options: .init(strategy: configuration.strategy))
                    count += 1
                }
            }
        }
        return count
    }
}
