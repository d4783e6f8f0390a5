import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// Loads an http(s) target as its strategy says (the shared work of coalesced callers).
    func loadHTTP(_ target: LoadTarget, start: Date) async throws -> AssetResponse {
        switch target.request.strategy {
        case .useProtocolCachePolicy:
            return try await self.loadFollowingProtocol(target, entry: try await self.lookup(target), start: start)
        case .networkOnly:
            return try await self.networkAnswer(target, entry: nil, start: start)
        case .cacheOnly:
            guard let entry = try await self.usableEntry(target) else {
                throw LoaderError.notCached.with(message: "\(target.cacheKey) is not cached")
            }
            return self.cachedResponse(entry, target: target, outcome: self.outcomeByFreshness(entry, target), start: start)
        case .cacheFirst:
            if let entry = try await self.usableEntry(target) {
                return self.cachedResponse(entry, target: target, outcome: self.outcomeByFreshness(entry, target), start: start)
            }
            return try await self.networkAnswer(target, entry: nil, start: start)
        case .networkFirst:
            let entry = try await self.usableEntry(target)
            do {
                return try await self.networkAnswer(target, entry: entry, start: start)
            } catch let failure as LoaderError where failure.allowsStaleFallback {
                guard let entry else { throw failure }
                self.logger.debug("network failed, answering from the cache", metadata: ["url": "\(target.request.address)", "error": "\(failure)"])
                return self.cachedResponse(entry, target: target, outcome: .stale, start: start)
            }
        case .cacheWithTimeout(let seconds):
            return try await self.loadWithTimeout(target, seconds: seconds, start: start)
        case .cacheAndNetwork:
            guard let entry = try await self.usableEntry(target) else {
                return try await self.networkAnswer(target, entry: nil, start: start)
            }
            self.refreshInBackground(target, entry: entry)
            return self.cachedResponse(entry, target: target, outcome: self.outcomeByFreshness(entry, target), start: start)
        }
    }

    /// The network's answer for an http(s) target, conditional on its usable cached entry (the refresh
    /// of ``CacheStrategy/cacheAndNetwork``); coalesced with identical refreshes.
    func refresh(_ target: LoadTarget, start: Date) async throws -> AssetResponse {
        try await self.inFlight.load(key: target.coalescingKey + "\nrefresh") {
            let entry = try await self.usableEntry(target)
            return try await self.networkAnswer(target, entry: entry, start: start)
        }
    }

    /// Asks the origin behind an answer already given (`stale-while-revalidate`, `cacheAndNetwork`),
    /// conditionally on `entry`, at most once at a time per cache key.
    func refreshInBackground(_ target: LoadTarget, entry: CachedEntry) {
        self.backgroundRefreshes.start(key: target.cacheKey) {
            do {
                let response = try await self.networkAnswer(target, entry: entry, start: self.configuration.clock.now)
                self.logger.debug(
                    "background refresh done", metadata: ["url": "\(target.request.address)", "outcome": "\(response.outcome.rawValue)"])
            } catch {
                self.logger.warning("background refresh failed", metadata: ["url": "\(target.request.address)", "error": "\(error)"])
            }
        }
    }

    /// The network's answer, or the cached entry if the network has not answered within `seconds`.
    private func loadWithTimeout(_ target: LoadTarget, seconds: Double, start: Date) async throws -> AssetResponse {
        guard let entry = try await self.usableEntry(target) else {
            return try await self.networkAnswer(target, entry: nil, start: start)
        }
        let network = Task { try await self.networkAnswer(target, entry: entry, start: start) }
        let race = await withTaskCancellationHandler {
            await DeadlineRace.run(network, within: .nanoseconds(Int64(max(0, seconds) * 1e9)))
        } onCancel: {
            network.cancel()
        }
        switch race {
        case .finished(.success(let response)):
            return response
        case .finished(.failure(let error)):
            let failure = LoaderError.mapping(error)
            guard failure.allowsStaleFallback else { throw failure }
            return self.cachedResponse(entry, target: target, outcome: .stale, start: start)
        case .timedOut:
            self.logger.debug("network slower than \(seconds) s, answering from the cache", metadata: ["url": "\(target.request.address)"])
            let logger = self.logger
            Task {
                if case .failure(let error) = await network.result {
                    logger.warning("download behind a cached answer failed", metadata: ["url": "\(target.request.address)", "error": "\(error)"])
                }
            }
            return self.cachedResponse(entry, target: target, outcome: .stale, start: start)
        }
    }

    /// An exchange with the origin, conditional when `entry` has validators; a `304` refreshes the entry.
    func networkAnswer(_ target: LoadTarget, entry: CachedEntry?, start: Date) async throws -> AssetResponse {
        let conditional = entry?.stored.map(\.conditionalHeaders).flatMap { $0.isEmpty ? nil : $0 }
        switch try await self.fetch(target, conditional: conditional, start: start) {
        case .full(let response):
            return response
        case .notModified(let notModified):
            if let entry, let response = try await self.applyNotModified(notModified, to: entry, target: target, start: start) {
                return response
            }
            return try await self.networkAnswer(target, entry: nil, start: start)
        }
    }

    /// Refreshes the entry's metadata from a `304` (keeping its body) and answers `revalidated`; nil when
    /// the `304` does not select the entry or the entry has gone (then the caller fetches anew).
    func applyNotModified(_ notModified: NotModified, to entry: CachedEntry, target: LoadTarget, start: Date) async throws -> AssetResponse? {
        guard let stored = entry.stored, let http = entry.metadata.http,
            let refreshed = stored.revalidated(
                withNotModified: notModified.headers, requestTime: notModified.requestTime, responseTime: notModified.responseTime)
        else { return nil }
        let info = CacheMetadata.HTTPInfo(
            status: http.status,
            headers: refreshed.headers.fields.map { (name: $0.name, value: $0.value) },
            requestTime: notModified.requestTime,
            responseTime: notModified.responseTime,
            varyRequestHeaders: http.varyRequestHeaders
        )
        let cache = self.diskCache
        let key = entry.metadata.key
        let checksum = entry.metadata.checksum
        let updated = try await self.runIO {
            try cache.updateMetadata(forKey: key) { metadata in
                guard metadata.checksum == checksum else { return }
                metadata.http = info
                metadata.eTag = refreshed.eTag
                metadata.lastModified = refreshed.headers["Last-Modified"]
            }
        }
        guard let updated, updated.checksum == checksum else { return nil }
        var response = self.cachedResponse(
            CachedEntry(metadata: updated, bodyPrefix: entry.bodyPrefix), target: target, outcome: .revalidated, start: start)
        response.attempts = notModified.attempts
        response.timings.responseHead = notModified.responseTime
        response.route = notModified.route
        return response
    }

    /// The cached entry for the target when it has whole data and matches the request's `Vary`.
    func usableEntry(_ target: LoadTarget) async throws -> CachedEntry? {
        guard let entry = try await self.lookup(target) else { return nil }
        return entry.matchesVary(target.request.headers) ? entry : nil
    }

    /// The cached entry for the target's key, if its metadata and data are there; for a key whose
    /// responses vary, the variant the request's fields select (``VaryIndex``). An entry stored with a
    /// status other than 200 or 203 is found only by requests with ``AssetRequest/acceptsAnyStatus``.
    func lookup(_ target: LoadTarget) async throws -> CachedEntry? {
        let cache = self.diskCache
        let key = target.cacheKey
        let requestHeaders = target.request.headers
        let found: (metadata: CacheMetadata, prefix: [UInt8])?
        do {
            found = try await self.runIO { () -> (metadata: CacheMetadata, prefix: [UInt8])? in
                // The metadata is read from the entry file itself (its footer checked): a hit here is a
                // whole entry. Its first bytes come along for a caller that sniffs the format.
                let prefixCount = AssetResponse.bodyPrefixLength
                guard let entry = try cache.metadata(forKey: key, prefixCount: prefixCount) else { return nil }
                guard VaryIndex.isIndex(entry.metadata) else { return entry }
                cache.touch(key: key)
                let variant = VaryIndex.variantKey(
                    baseKey: key, fieldNames: VaryIndex.fieldNames(ofIndex: entry.metadata), request: requestHeaders)
                return try cache.metadata(forKey: variant, prefixCount: prefixCount)
            }
        } catch let error as StorageError where error.code == .io {
            // A disk that cannot be read (no descriptors left, the directory gone) is a miss, not a failure.
            self.logger.warning("the disk cache could not be read; treating it as a miss", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
        guard let (metadata, prefix) = found else { return nil }
        // a stored 404 or 301 answers only the requests that pass such answers on
        if !target.request.acceptsAnyStatus, let status = metadata.http?.status, status != 200, status != 203 {
            return nil
        }
        return CachedEntry(metadata: metadata, bodyPrefix: prefix)
    }

    /// `cached` for a fresh entry (or one not from HTTP), `stale` otherwise.
    func outcomeByFreshness(_ entry: CachedEntry, _ target: LoadTarget) -> LoadOutcome {
        guard let stored = entry.stored else { return .cached }
        return self.policy.isFresh(stored, now: self.configuration.clock.now) ? .cached : .stale
    }

    /// An answer from a cache entry.
    func cachedResponse(_ entry: CachedEntry, target: LoadTarget, outcome: LoadOutcome, start: Date) -> AssetResponse {
        var response = AssetResponse(
            url: target.request.address, cacheKey: entry.metadata.key, kind: target.request.kind, outcome: outcome,
            status: entry.stored?.status ?? 200, headers: entry.headers, body: .cacheEntry(entry.metadata), storagePolicy: .allowed,
            size: entry.metadata.size, bytesReceived: 0, attempts: 0,
            timings: AssetResponse.Timings(start: start, responseHead: nil, end: self.configuration.clock.now))
        response.bodyPrefix = entry.bodyPrefix
        return response
    }
}
