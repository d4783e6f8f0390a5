import Foundation
import Synchronization

/// A clock that moves only when told to: for tests of expiry and ageing.
///
/// Thread-safe; a value read by one task after another task's ``advance(by:)`` returns sees the move.
public final class ManualClock: CacheClock {
    private let current: Mutex<Date>

    /// Creates a clock that reads `start` until it is advanced or set.
    ///
    /// - Parameter start: the initial time; defaults to 2026-01-01T00:00:00Z so that runs are repeatable.
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = Mutex(start)
    }

    public var now: Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward (or backward, with a negative interval) by `interval` seconds.
    public func advance(by interval: TimeInterval) {
        current.withLock { $0 += interval }
    }

    /// Sets the clock to `date`.
    public func set(to date: Date) {
        current.withLock { $0 = date }
    }
}
