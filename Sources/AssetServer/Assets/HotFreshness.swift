import AssetLoading
import Foundation

/// The freshness of a stored response, computed once so that a hot answer (``ServedAsset``,
/// ``ServedVariant``) decides it with two additions: its lifetime, whether it must always be
/// validated (`no-cache`), and RFC 9111 4.2.3's `corrected_initial_age` and `response_time`.
struct HotFreshness: Sendable {
    let lifetime: Double
    let alwaysValidate: Bool
    let correctedInitialAge: Double
    let responseTime: Date

    init(stored: StoredResponse, policy: FreshnessPolicy) {
        self.lifetime = policy.freshnessLifetime(of: stored)
        self.alwaysValidate = stored.cacheControl.noCache
        self.responseTime = stored.responseTime
        self.correctedInitialAge = policy.currentAge(of: stored, now: stored.responseTime)
    }

    /// The current age in seconds.
    func age(at now: Date) -> Double { correctedInitialAge + max(0, now.timeIntervalSince(responseTime)) }

    /// The `Age` value at `now`.
    func ageField(at now: Date) -> String { String(Int(min(age(at: now), Double(CacheControl.maximumDeltaSeconds)))) }

    /// Whether it may answer a request without request directives at `now`.
    func isFresh(at now: Date) -> Bool { !alwaysValidate && lifetime > age(at: now) }
}
