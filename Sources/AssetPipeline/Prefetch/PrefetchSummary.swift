/// The counts of a prefetch run, kept up to date while it runs.
public struct PrefetchSummary: Sendable, Equatable {
    /// Items finished (succeeded or failed); duplicates, blank and comment lines are not items.
    public var total = 0
    /// Items whose body came from the origin (200).
    public var downloaded = 0
    /// Items the origin confirmed unchanged (304).
    public var revalidated = 0
    /// Items answered by the cache with no request.
    public var cached = 0
    /// Items served stale by the cache (a directive allowed it).
    public var stale = 0
    /// Items that failed (malformed lines included).
    public var failed = 0
    /// Lines naming a URL seen before in this run, not fetched again.
    public var duplicates = 0
    /// Body bytes received from the network.
    public var bytesDownloaded: Int64 = 0
    /// Seconds from the start of the run to now (or to its end).
    public var elapsedSeconds = 0.0
    /// Whether the run was stopped before the end of the list.
    public var interrupted = false
    /// Items in flight when the run was stopped; they are not in the report and a rerun fetches them.
    public var cancelled = 0
    /// Items downloaded whole whose body the disk cache could not keep (full, read-only, gone):
    /// they succeeded, uncached, and a rerun fetches them again.
    public var storeFailures = 0
    /// Image variants made or warmed.
    public var variants = 0
    /// Items each tier node answered (prefetches through a tier).
    public var itemsPerNode: [String: Int] = [:]

    /// Creates a summary with every count at zero.
    public init() {}

    mutating func record(_ result: PrefetchResult) {
        total += 1
        bytesDownloaded += result.bytesDownloaded
        if let node = result.node { itemsPerNode[node, default: 0] += 1 }
        if result.storeFailure != nil { storeFailures += 1 }
        variants += result.variants
        switch result.outcome {
        case "downloaded": downloaded += 1
        case "revalidated": revalidated += 1
        case "cached", "localFile": cached += 1
        case "stale": stale += 1
        default: failed += 1
        }
    }
}
