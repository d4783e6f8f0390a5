import Synchronization

/// Spaces request starts so that at most `rate` start per second (evenly, no bursts).
final class RequestPacer: Sendable {
    private let interval: Duration
    private let next: Mutex<ContinuousClock.Instant>

    /// `rate` requests per second; must be positive.
    init(rate: Double) {
        interval = .nanoseconds(Int64((1e9 / rate).rounded()))
        next = Mutex(ContinuousClock.now)
    }

    /// Waits for the next start time; throws `CancellationError` if the task is cancelled meanwhile.
    func wait() async throws {
        let now = ContinuousClock.now
        let slot = next.withLock { next in
            let slot = max(next, now)
            next = slot + interval
            return slot
        }
        if slot > now { try await Task.sleep(until: slot, clock: .continuous) }
    }
}
