import DequeModule
import Synchronization

/// At most `limit` holders per host at once; the others wait in arrival order.
///
/// ``close()`` releases every waiter with `false`, so that a stopping run never hangs on a slot.
final class HostLimiter: Sendable {
    private struct State {
        var active: [String: Int] = [:]
        var waiters: [String: Deque<CheckedContinuation<Bool, Never>>] = [:]
        var closed = false
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a slot of `host`; false when the limiter was closed instead.
    func acquire(_ host: String) async -> Bool {
        let granted: Bool? = state.withLock { state in
            if state.closed { return false }
            let active = state.active[host, default: 0]
            guard active < limit else { return nil }
            state.active[host] = active + 1
            return true
        }
        if let granted { return granted }
        return await withCheckedContinuation { continuation in
            let immediate: Bool? = state.withLock { state in
                if state.closed { return false }
                let active = state.active[host, default: 0]
                if active < limit {
                    state.active[host] = active + 1
                    return true
                }
                state.waiters[host, default: []].append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// Gives a slot of `host` back, to the next waiter if there is one.
    func release(_ host: String) {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            if let waiter = state.waiters[host]?.popFirst() {
                if state.waiters[host]?.isEmpty == true { state.waiters[host] = nil }
                return waiter  // the slot passes over; the active count stays
            }
            let active = state.active[host, default: 1] - 1
            state.active[host] = active > 0 ? active : nil
            return nil
        }
        next?.resume(returning: true)
    }

    /// Fails every waiter and every later ``acquire(_:)``.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap { $0 }
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }
}
