import AssetImaging
import DequeModule
import Synchronization

/// At most ``maxRunning`` transforms at once and at most ``maxWaiting`` waiting for a turn, in
/// arrival order; a transform that finds the queue full fails at once with
/// `ImagingError.overloaded`, so that a burst of distinct cold variants turns into quick refusals
/// (a service answers 503 with `Retry-After`) rather than into an unbounded backlog of decodes.
///
/// A waiter whose task is cancelled leaves the queue and gets `CancellationError`.
final class TransformQueue: Sendable {
    private struct State {
        var running = 0
        var waiters: Deque<(id: UInt64, continuation: CheckedContinuation<Void, any Error>)> = []
        var counter: UInt64 = 0
    }

    let maxRunning: Int
    let maxWaiting: Int
    private let state = Mutex(State())

    init(maxRunning: Int, maxWaiting: Int) {
        self.maxRunning = max(1, maxRunning)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// Transforms running now, and waiting for a turn.
    var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiters.count) } }

    /// Runs `body` in a turn of the queue.
    /// - Throws: `ImagingError.overloaded` when the queue is full, `CancellationError` when the task
    ///   is cancelled while it waits, or what `body` throws.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        let decided: Bool? = state.withLock { state in
            if state.running < maxRunning {
                state.running += 1
                return true
            }
            return state.waiters.count >= maxWaiting ? false : nil
        }
        if decided == true { return }
        if decided == false { throw ImagingError.overloaded }
        let id = state.withLock { state -> UInt64 in
            state.counter &+= 1
            return state.counter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case run, full, cancelled, wait }
                let outcome: Outcome = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if state.running < maxRunning {
                        state.running += 1
                        return .run
                    }
                    if state.waiters.count >= maxWaiting { return .full }
                    state.waiters.append((id, continuation))
                    return .wait
                }
                switch outcome {
                case .run: continuation.resume()
                case .full: continuation.resume(throwing: ImagingError.overloaded)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if let waiter = state.waiters.popFirst() { return waiter.continuation }  // the turn passes over
            state.running -= 1
            return nil
        }
        next?.resume()
    }
}
