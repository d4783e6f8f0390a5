import AssetStorage

/// Where an ``ImageUtil`` keeps its variants: the image memory cache (keyed by ``VariantKey``) and
/// the coalescer that makes concurrent requests for one variant share one transform.
final class VariantStore: Sendable {
    let memory: MemoryCache<String, any Sendable>
    let work = TaskCoalescer<String, ImageVariant>()

    init(memory: MemoryCache<String, any Sendable>) {
        self.memory = memory
    }
}
