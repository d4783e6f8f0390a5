extension AssetLoader {
    /// Every answer a load gives, in order: for ``CacheStrategy/cacheAndNetwork`` the cached entry (when
    /// there is one) and then the network's answer (`revalidated` or `downloaded`); for other strategies
    /// the one answer of ``load(_:)``. A failure ends the sequence with a ``LoaderError``.
    public func updates(for request: AssetRequest) -> AsyncThrowingStream<AssetResponse, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    guard request.strategy == .cacheAndNetwork else {
                        continuation.yield(try await self.load(request))
                        continuation.finish()
                        return
                    }
                    var cacheRequest = request
                    cacheRequest.strategy = .cacheOnly
                    do {
                        continuation.yield(try await self.load(cacheRequest))
                    } catch let error as LoaderError where error == .notCached {
                        // nothing cached: the network's answer is the only one
                    }
                    continuation.yield(try await self.refreshed(request))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: LoaderError.mapping(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The network's answer to `request`, conditional on what is cached, counted like a load.
    private func refreshed(_ request: AssetRequest) async throws -> AssetResponse {
        let start = self.configuration.clock.now
        do {
            let target = try LoadTarget(request)
            guard target.scheme == .http else {
                return try await self.load(request)
            }
            let response = try await self.refresh(target, start: start)
            self.metrics.recordLoad(kind: request.kind, outcome: response.outcome)
            return response
        } catch {
            let failure = LoaderError.mapping(error)
            self.metrics.recordFailure(kind: request.kind, error: failure)
            throw failure
        }
    }
}
