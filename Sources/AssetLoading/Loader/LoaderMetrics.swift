#if canImport(Glibc)
import Glibc
#endif
import AssetStorage
import Metrics

/// The loader's counters: `assetpipe_loads_total` by kind and outcome, `assetpipe_load_errors_total` by
/// kind and error code, `assetpipe_tier_exchanges_total` by result, `assetpipe_store_failures_total` by kind
/// and system error (bodies the disk cache could not keep, answered from memory).
struct LoaderMetrics: Sendable {
    static let loadsLabel = "assetpipe_loads_total"
    static let errorsLabel = "assetpipe_load_errors_total"
    static let tierLabel = "assetpipe_tier_exchanges_total"
    static let storeFailuresLabel = "assetpipe_store_failures_total"

    let factory: (any MetricsFactory)?

    func recordLoad(kind: AssetKind, outcome: LoadOutcome) {
        self.counter(Self.loadsLabel, [("kind", kind.rawValue), ("outcome", outcome.rawValue)]).increment()
    }

    /// Counts an exchange sent to the tier: `answered`, `fell_back` (the origin answered instead) or
    /// `failed`.
    func recordTier(_ result: String) {
        self.counter(Self.tierLabel, [("result", result)]).increment()
    }

    func recordFailure(kind: AssetKind, error: LoaderError) {
        self.counter(Self.errorsLabel, [("kind", kind.rawValue), ("code", error.shortDescription)]).increment()
    }

    func recordStoreFailure(kind: AssetKind, error: StorageError) {
        let reason = error.errno.map { String(cString: strerror($0)) } ?? error.shortDescription
        self.counter(Self.storeFailuresLabel, [("kind", kind.rawValue), ("reason", reason)]).increment()
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        if let factory {
            return Counter(label: label, dimensions: dimensions, factory: factory)
        }
        return Counter(label: label, dimensions: dimensions)
    }
}
