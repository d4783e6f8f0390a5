import AssetStorage

/// Where an ``ImageUtil`` keeps its variants: the image memory cache (keyed by ``VariantKey``) and
/// the coalescer that makes concurrent requests for one variant share one transform, and the queue
/// that bounds the transforms running and waiting, and the shared ``DerivedStore``, if any.
final class VariantStore: Sendable {
    let memory: MemoryCache<String, any Sendable>
    /// A transform whose callers all left (a request past the service's transform timeout, a
    /// client gone) runs on and stores its variant: the retry finds it, or joins it.
    let work = TaskCoalescer<String, ImageVariant>(abandoned: .finish)
    let queue: TransformQueue
    let derived: DerivedStore?

    init(memory: MemoryCache<String, any Sendable>, queue: TransformQueue, derived: DerivedStore? = nil) {
        self.memory = memory
        self.queue = queue
        self.derived = derived
    }
}
