import Synchronization

/// Waits for a task's result or a delay, whichever comes first, without cancelling the task.
enum DeadlineRace<Success: Sendable> {
    case finished(Result<Success, any Error>)
    case timedOut

    /// The task's result if it finishes within `delay`, else ``timedOut`` (the task goes on).
    static func run(_ task: Task<Success, any Error>, within delay: Duration) async -> DeadlineRace<Success> {
        await withCheckedContinuation { (continuation: CheckedContinuation<DeadlineRace<Success>, Never>) in
            let once = ResumeOnce(continuation)
            let timer = Task {
                do {
                    try await Task.sleep(for: delay)
                    once.resume(.timedOut)
                } catch {
                    // cancelled because the task finished first
                }
            }
            Task {
                let result = await task.result
                timer.cancel()
                once.resume(.finished(result))
            }
        }
    }
}

/// A continuation resumed by whichever caller comes first.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let continuation = self.continuation.withLock { slot in
            defer { slot = nil }
            return slot
        }
        continuation?.resume(returning: value)
    }
}
