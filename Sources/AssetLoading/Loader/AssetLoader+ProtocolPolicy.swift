#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// ``CacheStrategy/useProtocolCachePolicy``: RFC 9111 as a private cache does it, decided by
    /// ``FreshnessPolicy``.
    ///
    /// Fresh: `cached`, no request. Stale with a validator: a conditional request, `304` refreshes the
    /// metadata (`revalidated`), `200` replaces the entry. `stale-while-revalidate`: `stale` at once and a
    /// background revalidation. A request's `max-stale`: `stale`. When the origin fails (connection,
    /// timeout, 5xx) a stale entry answers if `stale-if-error` or `max-stale` allow it. `only-if-cached`
    /// without a usable entry: ``LoaderError/notCached``. `entry` is what ``lookup(_:)`` found for the
    /// target (``load(_:)`` looks up before coalescing identical loads).
    func loadFollowingProtocol(_ target: LoadTarget, entry: CachedEntry?, start: Date) async throws -> AssetResponse {
        let requestHeaders = target.request.headers
        guard let entry, let stored = entry.stored else {
            // parsed only on a miss: on a hit `decide` reads the request's directives itself
            if CacheControl(headers: requestHeaders).onlyIfCached {
                throw LoaderError.notCached.with(message: "only-if-cached: \(target.cacheKey) is not cached")
            }
            return try await self.networkAnswer(target, entry: nil, start: start)
        }
        let now = self.configuration.clock.now
        switch self.policy.decide(stored: stored, request: requestHeaders, now: now) {
        case .fresh:
            return self.cachedResponse(entry, target: target, outcome: .cached, start: start)
        case .staleAllowed:
            return self.cachedResponse(entry, target: target, outcome: .stale, start: start)
        case .staleWhileRevalidate:
            self.refreshInBackground(target, entry: entry)
            return self.cachedResponse(entry, target: target, outcome: .stale, start: start)
        case .gatewayTimeout:
            throw LoaderError.notCached.with(message: "only-if-cached: the cached \(target.cacheKey) cannot be used unvalidated")
        case .mustRevalidate:
            return try await self.networkAnswerOrStale(target, entry: entry, revalidating: entry, start: start)
        case .unusable(let reason):
            // no validator: fetch anew, but the entry may still answer an error; Vary: keep it out.
            let fallback = reason == .noValidator ? entry : nil
            return try await self.networkAnswerOrStale(target, entry: fallback, revalidating: nil, start: start)
        }
    }

    /// The network's answer (conditional on `revalidating`), or `entry` served stale when the origin
    /// fails and the freshness rules allow it.
    private func networkAnswerOrStale(
        _ target: LoadTarget, entry: CachedEntry?, revalidating: CachedEntry?, start: Date
    ) async throws -> AssetResponse {
        do {
            return try await self.networkAnswer(target, entry: revalidating, start: start)
        } catch let failure as LoaderError where failure.allowsStaleFallback {
            guard let entry, let stored = entry.stored,
                self.policy.canServeStaleOnError(stored: stored, request: target.request.headers, now: self.configuration.clock.now)
            else { throw failure }
            self.logger.debug("origin failed, serving stale", metadata: ["url": "\(target.request.address)", "error": "\(failure)"])
            return self.cachedResponse(entry, target: target, outcome: .stale, start: start)
        }
    }
}
