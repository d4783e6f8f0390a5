import Synchronization

/// Loads in progress by coalescing key: the first caller starts the shared work in an unstructured task,
/// later callers wait for the same result.
///
/// A caller whose task is cancelled stops waiting at once and gets ``LoaderError/cancelled``; the work
/// goes on for the others. When the last waiter leaves, the work is cancelled and forgotten.
final class InFlightLoads: Sendable {
    private struct Entry {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<AssetResponse, any Error>] = [:]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextID: UInt64 = 0
        var joined = 0
        /// Tasks waiting for ``waitForWaiters(_:)``: how many callers each waits for.
        var waiterWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var waiterCount: Int { entries.values.reduce(0) { $0 + $1.waiters.count } }

        /// The watchers whose count is reached, removed.
        mutating func reachedWatchers() -> [CheckedContinuation<Void, Never>] {
            guard !waiterWatchers.isEmpty else { return [] }
            let count = waiterCount
            let reached = waiterWatchers.filter { $0.count <= count }.map(\.continuation)
            waiterWatchers.removeAll { $0.count <= count }
            return reached
        }

        mutating func makeID() -> UInt64 {
            self.nextID &+= 1
            return self.nextID
        }
    }

    private let state = Mutex(State())

    /// The number of keys with work in progress.
    var count: Int { self.state.withLock { $0.entries.count } }

    /// Callers that joined work already in progress instead of starting their own, since creation.
    var joinedCount: Int { self.state.withLock { $0.joined } }

    /// The number of callers waiting, over all keys.
    var waiterCount: Int { self.state.withLock { $0.waiterCount } }

    /// Returns once at least `count` callers wait, over all keys (for tests that start many identical
    /// loads and must know that all of them are in before the work answers).
    func waitForWaiters(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = self.state.withLock { state in
                if state.waiterCount >= count { return true }
                state.waiterWatchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// The result of the work for `key`: joins the work in progress, or starts `work`.
    func load(key: String, work: @escaping @Sendable () async throws -> AssetResponse) async throws -> AssetResponse {
        let waiterID = self.state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<AssetResponse, any Error>) in
                enum Registration { case cancelled, joined, started(UInt64) }
                let (registration, watchers) = self.state.withLock { state -> (Registration, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.cancelled, []) }
                    if state.entries[key] != nil {
                        state.entries[key]!.waiters[waiterID] = continuation
                        state.joined += 1
                        return (.joined, state.reachedWatchers())
                    }
                    let entryID = state.makeID()
                    state.entries[key] = Entry(id: entryID, waiters: [waiterID: continuation])
                    return (.started(entryID), state.reachedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                switch registration {
                case .cancelled:
                    continuation.resume(throwing: LoaderError.cancelled)
                case .joined:
                    break
                case .started(let entryID):
                    let task = Task {
                        let result: Result<AssetResponse, any Error>
                        do {
                            result = .success(try await work())
                        } catch {
                            result = .failure(error)
                        }
                        self.finish(key: key, entryID: entryID, result: result)
                    }
                    let abandoned = self.state.withLock { state -> Bool in
                        guard state.entries[key]?.id == entryID else { return true }
                        state.entries[key]!.task = task
                        return false
                    }
                    if abandoned { task.cancel() }
                }
            }
        } onCancel: {
            self.cancelWaiter(key: key, waiterID: waiterID)
        }
    }

    private func finish(key: String, entryID: UInt64, result: Result<AssetResponse, any Error>) {
        let waiters = self.state.withLock { state -> [CheckedContinuation<AssetResponse, any Error>] in
            guard let entry = state.entries[key], entry.id == entryID else { return [] }
            state.entries[key] = nil
            return Array(entry.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(with: result)
        }
    }

    private func cancelWaiter(key: String, waiterID: UInt64) {
        let (waiter, orphanedTask) = self.state.withLock {
            state -> (CheckedContinuation<AssetResponse, any Error>?, Task<Void, Never>?) in
            guard var entry = state.entries[key], let waiter = entry.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            if entry.waiters.isEmpty {
                state.entries[key] = nil
                return (waiter, entry.task)
            }
            state.entries[key] = entry
            return (waiter, nil)
        }
        waiter?.resume(throwing: LoaderError.cancelled)
        orphanedTask?.cancel()
    }
}
