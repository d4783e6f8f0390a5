import Synchronization

/// An async semaphore counted in bytes: work reserves the memory it will hold before it starts and
/// gives it back when done, so that the bytes held by work in flight stay within ``capacity``.
///
/// - Reservations are granted in arrival order (first in, first out), so a large reservation is not
///   starved by a stream of small ones.
/// - A reservation larger than the whole capacity is clamped to it: it waits until nothing else is
///   held, then runs alone, rather than waiting for ever.
/// - A caller cancelled while it waits gets `CancellationError` and holds nothing.
public final class ByteBudget: Sendable {
    private struct Waiter {
        let id: UInt64
        let bytes: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var held = 0
        var peak = 0
        var queue: [Waiter] = []
        var nextID: UInt64 = 0

        /// Grants queued reservations that now fit, in order; returns whom to resume.
        mutating func grantQueued(capacity: Int) -> [CheckedContinuation<Void, any Error>] {
            var granted: [CheckedContinuation<Void, any Error>] = []
            var taken = 0
            while taken < queue.count, held + queue[taken].bytes <= capacity {
                hold(queue[taken].bytes)
                granted.append(queue[taken].continuation)
                taken += 1
            }
            queue.removeFirst(taken)
            return granted
        }

        mutating func hold(_ bytes: Int) {
            held += bytes
            peak = max(peak, held)
        }
    }

    /// The most bytes held at once (a single reservation above it is clamped to it).
    public let capacity: Int
    private let state = Mutex(State())

    /// Creates a budget with nothing reserved.
    ///
    /// - Parameter capacity: bytes that reservations may hold together; at least 1.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Bytes held now.
    public var held: Int { state.withLock { $0.held } }
    /// The most bytes held at once since this budget was made (or ``resetPeak()``).
    public var peak: Int { state.withLock { $0.peak } }
    /// Reservations waiting.
    public var waiting: Int { state.withLock { $0.queue.count } }

    /// Sets ``peak`` to what is held now.
    public func resetPeak() {
        state.withLock { $0.peak = $0.held }
    }

    /// Holds `bytes` (clamped to `0...capacity`) while `body` runs, waiting first until they fit.
    ///
    /// - Throws: `CancellationError` when cancelled while waiting (then `body` does not run), or
    ///   what `body` throws.
    public func withReservation<T>(of bytes: Int, _ body: () async throws -> T) async throws -> T {
        let granted = try await reserve(bytes)
        defer { release(granted) }
        return try await body()
    }

    /// Waits until `bytes` (clamped to `0...capacity`) fit and holds them; returns the bytes held,
    /// to be given back with ``release(_:)``.
    public func reserve(_ bytes: Int) async throws -> Int {
        let amount = min(max(0, bytes), capacity)
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case granted, queued, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if state.queue.isEmpty, state.held + amount <= capacity {
                        state.hold(amount)
                        return .granted
                    }
                    state.queue.append(Waiter(id: id, bytes: amount, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .granted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let (cancelled, granted) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                let waiter = state.queue.remove(at: index)
                // The head may have been the one that blocked the reservations behind it.
                return (waiter.continuation, state.grantQueued(capacity: capacity))
            }
            cancelled?.resume(throwing: CancellationError())
            for continuation in granted { continuation.resume() }
        }
        return amount
    }

    /// Gives back bytes that ``reserve(_:)`` returned, and wakes the reservations that now fit.
    public func release(_ bytes: Int) {
        let granted = state.withLock { state in
            state.held -= bytes
            return state.grantQueued(capacity: capacity)
        }
        for continuation in granted { continuation.resume() }
    }
}
