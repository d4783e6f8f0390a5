import DequeModule
import Synchronization

/// Keeps the tests that measure this process's peak memory (`VmHWM`) apart from each other and
/// from the tests that allocate the most: Swift Testing runs suites in parallel in one process,
/// and a peak measured while another test holds 100 MB says nothing about the code under test.
///
/// ```swift
/// try await ProcessMemoryLock.shared.exclusive { /* measure, or allocate a lot */ }
/// ```
public final class ProcessMemoryLock: Sendable {
    public static let shared = ProcessMemoryLock()

    private struct State {
        var held = false
        var waiters = Deque<CheckedContinuation<Void, Never>>()
    }
    private let state = Mutex(State())

    /// Runs `body` while no other holder runs.
    public func exclusive<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let next = state.waiters.popFirst() { return next }
            state.held = false
            return nil
        }
        next?.resume()
    }
}
