import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import NIOCore

extension ServerContext {
    /// The stored answer to `request`: a fresh hot body from memory, else the loader's answer (from
    /// the disk cache, revalidated, or fetched and stored), its body read from the disk cache.
    ///
    /// - Parameters:
    ///   - memoryKind: the memory cache that keeps its hot body (the asset's kind).
    ///   - proxied: pass all the stored fields on (reverse proxy) rather than the asset API's.
    ///   - usesHotCopy: whether a fresh hot body may answer (not when the request carries cache
    ///     directives or fields a stored `Vary` might select on).
    func representation(
        for request: AssetRequest, cacheKey: String, memoryKind: AssetKind, proxied: Bool, usesHotCopy: Bool
    ) async throws -> Representation {
        let memoryKey = ServedAsset.memoryKey(for: cacheKey)
        let hot = manager.object(ServedAsset.self, forKey: memoryKey, kind: memoryKind)
        if usesHotCopy, let hot {
            let now = self.now
            if hot.isFresh(at: now) {
                metrics.recordLookup(layer: .memory, kind: memoryKind, hit: true)
                return hot.representation(proxied: proxied, now: now, cacheStatus: "memory")
            }
        }
        metrics.recordLookup(layer: .memory, kind: memoryKind, hit: false)
        for attempt in 0..<2 {
            let response = try await load(request)
            if let representation = try await representation(
                of: response, memoryKey: memoryKey, memoryKind: memoryKind, proxied: proxied, previous: hot)
            {
                return representation
            }
            // the entry changed between the load and the read: load again once
            logger.debug("cache entry changed while being read", metadata: ["key": "\(cacheKey)", "attempt": "\(attempt)"])
        }
        throw AssetServerError.internalError("the cache entry kept changing while it was read")
    }

    /// Loads through the manager's loader, timing network loads for the fetch histogram.
    func load(_ request: AssetRequest) async throws -> AssetResponse {
        let response = try await manager.load(request)
        metrics.recordLoad(response)
        return response
    }

    /// The representation of a loader's answer; nil when its cache entry was replaced meanwhile.
    private func representation(
        of response: AssetResponse, memoryKey: String, memoryKind: AssetKind, proxied: Bool, previous: ServedAsset?
    ) async throws -> Representation? {
        let cacheStatus = Self.cacheStatus(of: response.outcome)
        guard case .cacheEntry(let metadata) = response.body else {
            let data: Data
            switch response.body {
            case .data(let bytes): data = bytes
            default: data = try await manager.loader.data(for: response)
            }
            return Representation(
                status: response.status,
                fields: proxied ? PassedFields.proxied(response.headers) : PassedFields.asset(response.headers),
                eTag: response.headers["ETag"], lastModified: response.headers["Last-Modified"], length: Int64(data.count),
                source: .memory(ByteBuffer(bytes: data)), age: nil, cacheStatus: "uncached")
        }
        let stored = metadata.http.map(StoredResponse.init)
        metrics.recordLookup(layer: .disk, kind: memoryKind, hit: response.outcome != .downloaded)
        let now = self.now
        let age = stored.map { Int(min(policy.currentAge(of: $0, now: now), Double(CacheControl.maximumDeltaSeconds))) }
        let fields: HTTPFieldsBuilder = { headers in proxied ? PassedFields.proxied(headers) : PassedFields.asset(headers) }
        // the same bytes as the hot copy: refresh its metadata without reading the disk
        if let previous, let stored, previous.checksum == metadata.checksum {
            let refreshed = ServedAsset(metadata: metadata, stored: stored, body: previous.body, policy: policy, nodeName: configuration.nodeName)
            manager.setObject(refreshed, forKey: memoryKey, kind: memoryKind, cost: refreshed.cost)
            return refreshed.representation(proxied: proxied, now: now, cacheStatus: cacheStatus)
        }
        let disk = manager.diskCache
        let key = metadata.key
        guard let file = try await manager.runIO({ try disk.openData(forKey: key) }), file.checksum == metadata.checksum else {
            return nil
        }
        let keepsHot = file.size <= Int64(configuration.memoryAssetLimit) && stored.map { !Vary.fieldNames(in: $0.headers).isEmpty } != true
        if keepsHot, let stored {
            let size = Int(file.size)
            let body = try await manager.runIO { () -> ByteBuffer in
                var buffer = ByteBufferAllocator().buffer(capacity: size)
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { try file.read(at: 0, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
                guard read == size else { throw StorageError(.corrupt, "the data file is shorter than its entry") }
                return buffer
            }
            let served = ServedAsset(metadata: metadata, stored: stored, body: body, policy: policy, nodeName: configuration.nodeName)
            manager.setObject(served, forKey: memoryKey, kind: memoryKind, cost: served.cost)
            return served.representation(proxied: proxied, now: now, cacheStatus: cacheStatus)
        }
        let headers = stored?.headers ?? response.headers
        return Representation(
            status: response.status, fields: fields(headers), eTag: headers["ETag"], lastModified: headers["Last-Modified"],
            length: file.size, source: .file(file), age: age, cacheStatus: cacheStatus)
    }

    /// The `X-Assetpipe-Cache` value of a loader outcome.
    static func cacheStatus(of outcome: LoadOutcome) -> String {
        switch outcome {
        case .cached: return "disk"
        case .revalidated: return "revalidated"
        case .stale: return "stale"
        case .downloaded: return "miss"
        default: return outcome.rawValue
        }
    }

    /// Drops the hot copies of a cache key from every memory cache, and forgets that it was too
    /// large for the loader.
    func dropHotCopies(cacheKey: String) {
        largeAssets.remove(cacheKey)
        let memoryKey = ServedAsset.memoryKey(for: cacheKey)
        for kind in AssetKind.allCases { manager.memoryCache(for: kind).removeValue(forKey: memoryKey) }
    }
}

typealias HTTPFieldsBuilder = (HeaderFields) -> HTTPTypes.HTTPFields

import HTTPTypes
