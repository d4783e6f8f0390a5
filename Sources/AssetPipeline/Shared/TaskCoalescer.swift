import Synchronization

/// Shares identical in-flight work by key: the first caller for a key starts the work in an
/// unstructured task, and callers that arrive while it runs wait for the same result.
///
/// - **Results are not kept.** When the work ends, its key is forgotten, so a failure reaches the
///   callers that waited for it and the next caller starts afresh. Memoizing a success is the
///   caller's business (the utils put it in a memory cache before the work returns).
/// - **Cancellation is per caller.** A caller whose task is cancelled stops waiting at once and gets
///   `CancellationError`; the work goes on for the others. When the last waiter leaves, what happens
///   is the coalescer's ``Abandoned`` rule: by default the work's task is cancelled and its key
///   forgotten; with ``Abandoned/finish`` the work runs to its end and a caller that comes meanwhile
///   joins it (work whose result is stored, such as a transform a timed-out request started).
///
/// The same shape as lottie-android's task cache and Nuke's task coalescing, with the cancellation
/// rule of structured concurrency.
public final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Work {
        let generation: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter]
    }

    private struct State {
        var works: [Key: Work] = [:]
        var counter: UInt64 = 0
        var started = 0

        mutating func next() -> UInt64 {
            counter &+= 1
            return counter
        }
    }

    /// What a caller does after registering, decided under the lock.
    private enum Role {
        case cancelled
        case joined
        case leader(generation: UInt64)
    }

    /// What becomes of work when its last waiter leaves.
    public enum Abandoned: Sendable {
        /// The work's task is cancelled and its key forgotten: the next caller starts afresh.
        case cancel
        /// The work runs on to its end (its result is kept by the work itself, in a cache); callers
        /// that come meanwhile join it.
        case finish
    }

    private let state = Mutex(State())
    private let whenAbandoned: Abandoned

    /// Creates a coalescer with no work in flight; `abandoned` says what becomes of work whose
    /// callers have all left.
    public init(abandoned: Abandoned = .cancel) {
        self.whenAbandoned = abandoned
    }

    /// Keys whose work is running.
    public var inFlightCount: Int { state.withLock { $0.works.count } }

    /// Callers waiting, over all keys.
    public var waiterCount: Int { state.withLock { $0.works.values.reduce(0) { $0 + $1.waiters.count } } }

    /// How many times work was started since this coalescer was made (a joined caller starts none).
    public var startedCount: Int { state.withLock { $0.started } }

    /// The result of the work for `key`: joins the work in progress, or starts `work`.
    ///
    /// - Throws: what `work` threw, or `CancellationError` when the calling task is cancelled while
    ///   it waits.
    public func value(forKey key: Key, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { $0.next() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let role = state.withLock { state -> Role in
                    if Task.isCancelled { return .cancelled }
                    if state.works[key] != nil {
                        state.works[key]!.waiters[waiterID] = continuation
                        return .joined
                    }
                    let generation = state.next()
                    state.started += 1
                    state.works[key] = Work(generation: generation, task: nil, waiters: [waiterID: continuation])
                    return .leader(generation: generation)
                }
                switch role {
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .joined:
                    break
                case .leader(let generation):
                    start(work, forKey: key, generation: generation)
                }
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
    }

    private func start(_ work: @escaping @Sendable () async throws -> Value, forKey key: Key, generation: UInt64) {
        let task = Task {
            do {
                finish(key: key, generation: generation, with: .success(try await work()))
            } catch {
                finish(key: key, generation: generation, with: .failure(error))
            }
        }
        // Every waiter may have left before the task existed: then nobody will cancel it but us.
        let orphaned = state.withLock { state -> Bool in
            guard state.works[key]?.generation == generation else { return true }
            state.works[key]!.task = task
            return false
        }
        if orphaned { task.cancel() }
    }

    private func finish(key: Key, generation: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [Waiter] in
            guard let work = state.works[key], work.generation == generation else { return [] }
            state.works[key] = nil
            return Array(work.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(key: Key, waiterID: UInt64) {
        let (waiter, abandoned) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard var work = state.works[key], let waiter = work.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            guard work.waiters.isEmpty, whenAbandoned == .cancel else {
                state.works[key] = work
                return (waiter, nil)
            }
            state.works[key] = nil
            return (waiter, work.task)
        }
        waiter?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }
}
