import Synchronization

/// Refreshes running behind answers already given (`stale-while-revalidate`), at most one per cache key.
final class BackgroundRefreshes: Sendable {
    private struct State {
        var running: [String: Task<Void, Never>] = [:]
        var starting: Set<String> = []
    }

    private let state = Mutex(State())

    /// Starts `work` for `key` in an unstructured task unless a refresh of `key` is running.
    func start(key: String, _ work: @escaping @Sendable () async -> Void) {
        let claimed = self.state.withLock { state -> Bool in
            guard state.running[key] == nil, !state.starting.contains(key) else { return false }
            state.starting.insert(key)
            return true
        }
        guard claimed else { return }
        let task = Task {
            await work()
        }
        self.state.withLock { state in
            state.starting.remove(key)
            state.running[key] = task
        }
        Task {
            await task.value
            self.state.withLock { state in
                if state.running[key] == task { state.running[key] = nil }
            }
        }
    }

    /// Waits until the refreshes running now have finished.
    func waitForAll() async {
        let tasks = self.state.withLock { Array($0.running.values) }
        for task in tasks {
            await task.value
        }
    }
}
