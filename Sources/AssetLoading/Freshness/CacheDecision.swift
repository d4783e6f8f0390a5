/// What a cache does with a stored response for a new request (RFC 9111 4).
public enum CacheDecision: Sendable, Hashable {
    /// Why a stored response cannot be used at all.
    public enum UnusableReason: Sendable, Hashable {
        /// The stored response says `Vary: *`.
        case varyStar
        /// The request's fields named by `Vary` differ from the stored ones.
        case varyMismatch
        /// The response must be validated (stale, `no-cache`, a request constraint) but has neither
        /// `ETag` nor `Last-Modified`: fetch it unconditionally.
        case noValidator
    }

    /// Fresh: answer from the cache without contacting the origin. `age` is the `Age` to send, in seconds.
    case fresh(age: Int)
    /// Stale within the response's `stale-while-revalidate` window: answer from the cache now and
    /// revalidate in the background with `conditionalHeaders` (unconditionally when they are empty).
    case staleWhileRevalidate(age: Int, conditionalHeaders: ConditionalHeaders)
    /// Stale, but the request's `max-stale` accepts it: answer from the cache.
    case staleAllowed(age: Int)
    /// Validate first: send a conditional request with these fields; a 304 lets the stored response be used.
    case mustRevalidate(ConditionalHeaders)
    /// The stored response cannot be used: fetch a new one.
    case unusable(UnusableReason)
    /// The request said `only-if-cached` and the stored response cannot satisfy it: answer 504.
    case gatewayTimeout

    /// Whether the stored response is sent to the client without waiting for the origin.
    public var servesStoredResponse: Bool {
        switch self {
        case .fresh, .staleWhileRevalidate, .staleAllowed: return true
        case .mustRevalidate, .unusable, .gatewayTimeout: return false
        }
    }
}
