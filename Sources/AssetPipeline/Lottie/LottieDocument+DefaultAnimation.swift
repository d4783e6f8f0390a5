import AssetLottie

/// A document's default animation: the one ``LottieUtil/animation(for:options:)`` returns.
extension LottieDocument {
    /// The animation a player shows first: for a dotLottie, the one its manifest names
    /// (`activeAnimationId` in version 1, `initial.animation` in version 2) when the archive holds
    /// it, else the first in manifest order; for plain JSON and `.tgs`, the only one.
    public var defaultEntry: Entry? {
        if let manifest, let id = manifest.json["activeAnimationId"]?.stringValue
            ?? manifest.json["initial"]?.objectValue?["animation"]?.stringValue,
            let named = animations.first(where: { $0.id == id })
        {
            return named
        }
        return animations.first
    }
}
