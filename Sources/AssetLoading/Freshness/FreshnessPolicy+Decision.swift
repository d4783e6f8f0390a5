#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FreshnessPolicy {
    /// Decides how a request may use a stored response (RFC 9111 4, 4.2.4, 5.2; RFC 5861).
    ///
    /// In order: `Vary` must match; `no-cache` (response, or request including `Pragma: no-cache` when the
    /// request has no `Cache-Control`) forces validation; a fresh response is used unless the request's
    /// `max-age` or `min-fresh` refuses it (then it is validated); a stale response is never served when
    /// it says `must-revalidate` (or, shared, `proxy-revalidate` / `s-maxage`), else it is served when the
    /// request's `max-stale` accepts its staleness, or in the background-revalidation window of
    /// `stale-while-revalidate`; otherwise it is validated. Validation needs a validator: without one the
    /// answer is ``CacheDecision/unusable(_:)``. With `only-if-cached` every outcome that would contact the
    /// origin first becomes ``CacheDecision/gatewayTimeout``.
    public func decide(stored: StoredResponse, request: HeaderFields, now: Date) -> CacheDecision {
        let requestDirectives = Self.requestDirectives(request)
        let decision = self.decideIgnoringOnlyIfCached(stored: stored, request: request, directives: requestDirectives, now: now)
        if requestDirectives.onlyIfCached && !decision.servesStoredResponse {
            return .gatewayTimeout
        }
        return decision
    }

    /// Whether the stored response may answer a request whose revalidation or fetch failed (an error or a
    /// 5xx): allowed when fresh, or when stale within the response's or the request's `stale-if-error`
    /// window or the request's `max-stale`; never for `no-cache`, `must-revalidate` (the cache answers
    /// 504) or a `Vary` mismatch.
    public func canServeStaleOnError(stored: StoredResponse, request: HeaderFields, now: Date) -> Bool {
        guard Vary.matches(stored: stored, request: request) else { return false }
        let response = stored.cacheControl
        let requestDirectives = Self.requestDirectives(request)
        if response.noCache || requestDirectives.noCache || self.forbidsStaleUse(response) {
            return false
        }
        let staleness = self.currentAge(of: stored, now: now) - self.freshnessLifetime(of: stored, cacheControl: response)
        if staleness < 0 {
            return true
        }
        if let maxStale = requestDirectives.maxStale, maxStale.allows(staleness: staleness) {
            return true
        }
        let window = max(response.staleIfError ?? -1, requestDirectives.staleIfError ?? -1)
        return window >= 0 && staleness <= Double(window)
    }

    /// The request's `Cache-Control`, with `Pragma: no-cache` read as `no-cache` when there is no
    /// `Cache-Control` (RFC 9111 5.4).
    static func requestDirectives(_ request: HeaderFields) -> CacheControl {
        var directives = CacheControl(headers: request)
        if !request.contains("Cache-Control"),
            request.listMembers(for: "Pragma").contains(where: { $0.lowercased() == "no-cache" })
        {
            directives.noCache = true
        }
        return directives
    }

    /// Whether the response forbids serving it stale: `must-revalidate`, or for a shared cache
    /// `proxy-revalidate` and `s-maxage` (RFC 9111 5.2.2.2, 5.2.2.8, 5.2.2.10).
    func forbidsStaleUse(_ response: CacheControl) -> Bool {
        response.mustRevalidate
            || (self.configuration.shared && (response.proxyRevalidate || response.sharedMaxAge != nil))
    }

    private func decideIgnoringOnlyIfCached(
        stored: StoredResponse,
        request: HeaderFields,
        directives requestDirectives: CacheControl,
        now: Date
    ) -> CacheDecision {
        if Vary.isUnmatchable(stored.headers) { return .unusable(.varyStar) }
        guard Vary.matches(stored: stored, request: request) else { return .unusable(.varyMismatch) }

        let response = stored.cacheControl
        // computed only on the paths that validate, not for a fresh answer
        var revalidate: CacheDecision {
            stored.hasValidator ? .mustRevalidate(stored.conditionalHeaders) : .unusable(.noValidator)
        }
        if response.noCache || requestDirectives.noCache {
            return revalidate
        }

        let age = self.currentAge(of: stored, now: now)
        let lifetime = self.freshnessLifetime(of: stored, cacheControl: response)
        let ageHeader = Int(min(age, Double(CacheControl.maximumDeltaSeconds)))

        if let requestMaxAge = requestDirectives.maxAge, age > Double(requestMaxAge) {
            return revalidate
        }
        if lifetime > age {
            if let minFresh = requestDirectives.minFresh, lifetime - age < Double(minFresh) {
                return revalidate
            }
            return .fresh(age: ageHeader)
        }

        let staleness = age - lifetime
        if self.forbidsStaleUse(response) {
            return revalidate
        }
        if let maxStale = requestDirectives.maxStale, maxStale.allows(staleness: staleness) {
            return .staleAllowed(age: ageHeader)
        }
        if let window = response.staleWhileRevalidate, staleness <= Double(window) {
            return .staleWhileRevalidate(age: ageHeader, conditionalHeaders: stored.conditionalHeaders)
        }
        return revalidate
    }
}
