import Foundation

/// A source of wall-clock time for the caches, injected so that tests can move it.
///
/// The storage layer never calls `Date()` directly: a cache takes a `CacheClock` at init
/// (``SystemClock`` by default) and tests pass a ``ManualClock``.
public protocol CacheClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
}

/// The system's wall clock (`Date()`).
public struct SystemClock: CacheClock {
    /// Creates the system clock.
    public init() {}

    @inlinable
    public var now: Date { Date() }
}
