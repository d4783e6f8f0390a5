import AssetImaging
import AssetLoading
import AssetStorage

extension Prefetcher {
    /// The `Accept` fields of the browsers whose answers a `format=auto` variant is warmed for, and
    /// the formats each takes: one that takes AVIF, one that takes WebP only, one that takes neither.
    static let warmedAcceptClasses: [(accept: String, formats: [OutputFormat])] = [
        ("image/avif,image/webp,image/apng,image/*,*/*;q=0.8", [.avif, .webp, .jpeg, .png]),
        ("image/webp,image/*,*/*;q=0.8", [.webp, .jpeg, .png]),
        ("image/*,*/*;q=0.8", [.jpeg, .png]),
    ]

    /// The configured variants that apply to a source of `kind` (`named`: the kind the list gave,
    /// if any): those with a frame or `animate=1` to an animation or a video, the others to an image,
    /// or to a source whose kind is not known (as before frames existed).
    static func variants(_ transforms: [ImageTransform], of kind: AssetKind?, named: AssetKind?) -> [ImageTransform] {
        switch kind {
        case .image: transforms.filter { $0.frame == nil && !$0.animate }
        case .lottie, .video: transforms.filter { $0.frame != nil || $0.animate }
        case nil where named == nil: transforms.filter { $0.frame == nil && !$0.animate }
        default: []
        }
    }

    /// Makes `transforms` of the source at `url` (or has the tier node make them); returns how many
    /// were made or warmed. A frame of a video (`kind`) is read by range through the chunk store
    /// (``VideoFrameVariants``), never loaded whole as an image source.
    func warmVariants(_ transforms: [ImageTransform], of url: String, kind: AssetKind?) async throws -> Int {
        let location = try AssetRequest.location(url)
        var count = 0
        for transform in transforms {
            let auto = transform.format == .auto
            if configuration.warmsTierOnly {
                let items = transform.queryItemsText
                let query = items.isEmpty ? "format=auto" : items
                for accept in auto ? Self.warmedAcceptClasses.map(\.accept) : [nil] {
                    _ = try await manager.loader.warmTierVariant(for: location, imageQuery: query, accept: accept)
                    count += 1
                }
            } else {
                for accepted in auto ? Self.warmedAcceptClasses.map(\.formats) : [nil] {
                    let options = ImageUtil.Options(strategy: configuration.strategy)
                    if kind == .video, transform.frame != nil || transform.animate,
                        try await videoFrames.variant(for: url, transform: transform, accepting: accepted, options: options) != nil
                    {
                        count += 1
                        continue
                    }
                    _ = try await images.variant(for: location, transform: transform, accepting: accepted, options: options)
                    count += 1
                }
            }
        }
        return count
    }
}
