import AssetStorage
import Foundation
import Synchronization

/// One chunk as a fetch delivered it: the whole chunk's bytes and the version they belong to.
struct ChunkDelivery: Sendable {
    var data: Data
    var version: VideoVersion
}

/// The wait for one chunk that a read is fetching: other readers of the same chunk wait here
/// instead of asking the origin again. Resolved once, with the chunk or an error.
final class ChunkSignal: Sendable {
    private struct State {
        var result: Result<ChunkDelivery, any Error>?
        var waiters: [Int: CheckedContinuation<ChunkDelivery, any Error>] = [:]
        var nextWaiter = 0
    }
    private let state = Mutex(State())

    func resolve(_ result: Result<ChunkDelivery, any Error>) {
        let waiters = state.withLock { s -> [CheckedContinuation<ChunkDelivery, any Error>] in
            guard s.result == nil else { return [] }
            s.result = result
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Waits for the chunk; a cancelled waiter stops waiting (the fetch goes on for the others).
    func wait() async throws -> ChunkDelivery {
        let id = state.withLock { s -> Int in defer { s.nextWaiter += 1 }; return s.nextWaiter }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let done = state.withLock { s -> Result<ChunkDelivery, any Error>? in
                    if let result = s.result { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.waiters[id] = continuation
                    return nil
                }
                if let done { continuation.resume(with: done) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// The chunks being fetched right now, by cache key and chunk index, so that concurrent
/// readers of the same missing chunk share one fetch.
final class InFlightChunks: Sendable {
    private struct Key: Hashable {
        var key: String
        var index: Int
    }
    private let signals = Mutex<[Key: ChunkSignal]>([:])

    /// The signal of a chunk someone is fetching, if any.
    func signal(key: String, index: Int) -> ChunkSignal? {
        signals.withLock { $0[Key(key: key, index: index)] }
    }

    /// Claims the chunks of `indices` from the first on, stopping at the first that someone
    /// else already fetches; returns the signals of the claimed ones (empty when even the first
    /// was taken).
    func claim(key: String, indices: Range<Int>) -> [Int: ChunkSignal] {
        signals.withLock { table in
            var claimed: [Int: ChunkSignal] = [:]
            for index in indices {
                let k = Key(key: key, index: index)
                if table[k] != nil { break }
                let signal = ChunkSignal()
                table[k] = signal
                claimed[index] = signal
            }
            return claimed
        }
    }

    /// Forgets a claim and resolves its waiters.
    func finish(key: String, index: Int, signal: ChunkSignal, _ result: Result<ChunkDelivery, any Error>) {
        signals.withLock { table in
            let k = Key(key: key, index: index)
            if table[k] === signal { table[k] = nil }
        }
        signal.resolve(result)
    }
}
