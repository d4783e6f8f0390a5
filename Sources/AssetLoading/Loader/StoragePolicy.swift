/// Where a response's body may be kept.
public enum StoragePolicy: String, Sendable, Hashable {
    /// On disk (and in memory): the loader stores it in the disk cache.
    case allowed
    /// In memory only: the loader hands the body over in memory and does not store it; a memory cache
    /// above the loader may keep it.
    case memoryOnly
    /// Nowhere: the body is handed over in memory and must not be kept.
    case notAllowed
}
