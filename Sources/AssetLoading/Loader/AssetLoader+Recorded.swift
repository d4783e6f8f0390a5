import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// An answer to `request` from a record of the source kept by another process (the disk
    /// metadata of its copy, as a `CacheMetadata`, e.g. from a shared derived store), without
    /// contacting the origin; nil unless the record may answer it now.
    ///
    /// - **The rule** is the one a local cache entry answers under: the record must name the
    ///   request's cache key, hold a 200 or 203 from HTTP with no `Vary`, and be fresh for the
    ///   request (RFC 9111: its age from the original exchange's times and `Age`, its lifetime from
    ///   `max-age` / `Expires` / the heuristic, `no-cache` and the request's own directives). So a
    ///   source is trusted exactly as long as any cache of it would be, and not a second longer.
    /// - **The body** is a cache entry this process may not hold: ``data(for:)`` throws
    ///   `LoaderError.notCached` when it is not on disk, and the caller loads the source then.
    /// - The outcome is ``LoadOutcome/cached``, with no exchange and no bytes received.
    public func recordedResponse(for request: AssetRequest, record metadata: CacheMetadata) -> AssetResponse? {
        guard let target = try? LoadTarget(request), case .http = target.scheme, metadata.key == target.cacheKey,
            metadata.kind == request.kind, let http = metadata.http, http.status == 200 || http.status == 203
        else { return nil }
        let entry = CachedEntry(metadata: metadata)
        guard let stored = entry.stored, Vary.fieldNames(in: stored.headers).isEmpty else { return nil }
        let now = self.configuration.clock.now
        guard case .fresh = self.policy.decide(stored: stored, request: request.headers, now: now) else { return nil }
        return self.cachedResponse(entry, target: target, outcome: .cached, start: now)
    }
}
