#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The freshness rules of RFC 9111 4.2 for a private cache (or, with ``Configuration/shared``, a shared one).
///
/// Pure functions of a ``StoredResponse``, the request's header fields and the current time: no I/O,
/// no clock of its own.
public struct FreshnessPolicy: Sendable, Hashable {
    /// How the rules are applied.
    public struct Configuration: Sendable, Hashable {
        /// Whether the cache is shared (service mode): then `s-maxage` and `proxy-revalidate` apply,
        /// `private` responses are not stored. Default `false` (a private cache).
        public var shared: Bool
        /// The fraction of the time since `Last-Modified` used as a heuristic freshness lifetime
        /// (RFC 9111 4.2.2). Default `0.1`.
        public var heuristicFraction: Double
        /// An upper bound on the heuristic lifetime in seconds, or nil for none. Default nil.
        public var maximumHeuristicLifetime: Double?

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(shared: Bool = false, heuristicFraction: Double = 0.1, maximumHeuristicLifetime: Double? = nil) {
            self.shared = shared
            self.heuristicFraction = heuristicFraction
            self.maximumHeuristicLifetime = maximumHeuristicLifetime
        }
    }

    /// The status codes whose responses are heuristically cacheable (RFC 9110 15.1).
    public static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether the cache is shared, and the heuristic lifetime's fraction and bound.
    public var configuration: Configuration

    /// Creates the rules; a private cache with the default heuristic unless told otherwise.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The freshness lifetime in seconds (RFC 9111 4.2.1), first match wins: `s-maxage` (shared caches
    /// only), `max-age`, `Expires` minus `Date` (an invalid or repeated `Expires` gives 0), then the
    /// heuristic for heuristically cacheable statuses or `public` responses with `Last-Modified`; else 0.
    public func freshnessLifetime(of stored: StoredResponse) -> Double {
        self.freshnessLifetime(of: stored, cacheControl: stored.cacheControl)
    }

    /// ``freshnessLifetime(of:)`` with the response's directives already parsed.
    func freshnessLifetime(of stored: StoredResponse, cacheControl: CacheControl) -> Double {
        if self.configuration.shared, let sharedMaxAge = cacheControl.sharedMaxAge {
            return Double(sharedMaxAge)
        }
        if let maxAge = cacheControl.maxAge {
            return Double(maxAge)
        }
        let expiresValues = stored.headers.values(for: "Expires")
        if !expiresValues.isEmpty {
            guard expiresValues.count == 1, let expires = HTTPDate.parse(expiresValues[0], now: stored.responseTime) else {
                return 0
            }
            let date = stored.date ?? stored.responseTime
            return max(0, expires.timeIntervalSince(date))
        }
        return self.heuristicLifetime(of: stored, cacheControl: cacheControl) ?? 0
    }

    /// The heuristic lifetime (RFC 9111 4.2.2), or nil when the response does not qualify.
    func heuristicLifetime(of stored: StoredResponse, cacheControl: CacheControl) -> Double? {
        guard Self.heuristicallyCacheableStatuses.contains(stored.status) || cacheControl.isPublic,
            let lastModified = stored.lastModified
        else { return nil }
        let date = stored.date ?? stored.responseTime
        var lifetime = max(0, date.timeIntervalSince(lastModified)) * self.configuration.heuristicFraction
        if let maximum = self.configuration.maximumHeuristicLifetime {
            lifetime = min(lifetime, maximum)
        }
        return lifetime
    }

    /// The current age in seconds (RFC 9111 4.2.3):
    ///
    /// ```
    /// apparent_age = max(0, response_time - date_value)
    /// response_delay = response_time - request_time
    /// corrected_age_value = age_value + response_delay
    /// corrected_initial_age = max(apparent_age, corrected_age_value)
    /// resident_time = now - response_time
    /// current_age = corrected_initial_age + resident_time
    /// ```
    ///
    /// A missing or invalid `Date` counts as the response time, a missing or invalid `Age` as 0.
    public func currentAge(of stored: StoredResponse, now: Date) -> Double {
        let dateValue = stored.date ?? stored.responseTime
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedAgeValue = Double(stored.age ?? 0) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return correctedInitialAge + residentTime
    }

    /// Whether the stored response is fresh at `now`: its lifetime exceeds its current age.
    public func isFresh(_ stored: StoredResponse, now: Date) -> Bool {
        self.freshnessLifetime(of: stored) > self.currentAge(of: stored, now: now)
    }
}
