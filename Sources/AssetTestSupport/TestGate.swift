import Synchronization

/// A one-shot gate for tests: ``wait()`` suspends until ``open()`` is called (at once if it already was),
/// or until the waiting task is cancelled.
///
/// Give one to a ``TestResponse`` to hold its answer until the test has, say, started every concurrent
/// load it wants to see coalesced.
public final class TestGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether ``open()`` has been called.
    public var isOpen: Bool { self.state.withLock { $0.isOpen } }

    /// Opens the gate: every waiter resumes, and later waits return at once.
    public func open() {
        let waiters = self.state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open or the calling task is cancelled.
    public func wait() async {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
