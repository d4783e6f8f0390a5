import AssetLoading
import AsyncHTTPClient

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DerivedStore {
    /// What a prune did.
    public struct PruneResult: Sendable, Hashable {
        /// Objects removed.
        public var removed: Int
        /// Their bytes.
        public var removedBytes: Int64
        /// Objects kept.
        public var kept: Int
    }

    /// Removes the store's objects written longer ago than `maxAge` (by their `LastModified`);
    /// an object without a date is kept. Throws a `LoaderError` when the store cannot
    /// be listed or an object not removed.
    public func prune(maxAge: Duration, now: Date = Date()) async throws(LoaderError) -> PruneResult {
        var prefix = self.configuration.location.key
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let bucket = self.configuration.location.bucket
        let objects = try await self.client.listObjects(bucket: bucket, prefix: prefix.isEmpty ? "" : prefix + "/")
        let (seconds, attoseconds) = maxAge.components
        let cutoff = now.addingTimeInterval(-(Double(seconds) + Double(attoseconds) / 1e18))
        var result = PruneResult(removed: 0, removedBytes: 0, kept: 0)
        for object in objects {
            guard let written = object.lastModified, written < cutoff else {
                result.kept += 1
                continue
            }
            try await self.client.delete(S3Location(bucket: bucket, key: object.key))
            result.removed += 1
            result.removedBytes += object.size
        }
        return result
    }
}

extension DerivedStore {
    /// ``prune(maxAge:now:)`` of the store `configuration` names, on an HTTP client of its own
    /// (shut down before returning): what `assetpipe cache prune --derived-store` runs.
    public static func prune(_ configuration: Configuration, maxAge: Duration, now: Date = Date()) async throws(LoaderError) -> PruneResult {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let outcome: Result<PruneResult, LoaderError>
        do {
            outcome = .success(try await DerivedStore(configuration: configuration, httpClient: client).prune(maxAge: maxAge, now: now))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        return try outcome.get()
    }
}
