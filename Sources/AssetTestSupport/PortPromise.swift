import Synchronization

/// The port reported by `onServerRunning`, awaited by ``TestOrigin/start(configuration:)``.
/// The first ``fulfil(_:)`` wins; nil means the server stopped before listening.
final class PortPromise: Sendable {
    private struct State {
        var value: Int??
        var waiter: CheckedContinuation<Int?, Never>?
    }

    private let state = Mutex(State())

    func fulfil(_ port: Int?) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Int?, Never>? in
            guard state.value == nil else { return nil }
            state.value = .some(port)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: port)
    }

    var value: Int? {
        get async {
            await withCheckedContinuation { continuation in
                let ready = self.state.withLock { state -> Int?? in
                    if let value = state.value { return .some(value) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
