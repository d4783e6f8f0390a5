import AssetStorage

/// Where the ``AssetsManager`` keeps a value.
public enum StorageType: Sendable, Hashable {
    /// The in-memory LRU cache of one kind only (lost on restart).
    case lru(AssetKind)
    /// The disk cache only.
    case disk
    /// The kind's memory cache in front of the disk cache: writes go to both, a read tries
    /// memory first and a disk hit fills memory.
    case hybrid(AssetKind)
}
