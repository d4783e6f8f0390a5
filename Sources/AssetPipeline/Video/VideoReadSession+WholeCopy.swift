import AssetLoading
import AssetStorage
import Foundation

extension VideoReadSession {
    /// Serves the read from a whole copy of the resource in the disk cache (a video prefetched
    /// whole, or fetched whole by the loader) when there is a usable one: fresh, or confirmed by
    /// the origin with a `304`. Returns false when the read goes to the chunk store instead.
    ///
    /// A copy that may no longer be used (the origin sent another version, or HTTP caching
    /// forbids serving it) is removed, so that the bytes of an asset live in one place: the
    /// chunks this read then stores replace it. A copy whose response varies (`Vary`) or that
    /// is not a `200`/`203` is left alone and not used.
    func openWholeCopy() async throws -> Bool {
        let disk = util.manager.diskCache
        let key = self.key
        guard let metadata = try await util.runIO({ () -> CacheMetadata? in
            guard let metadata = try disk.metadata(forKey: key), disk.contains(key: key) else { return nil }
            return metadata
        }) else { return false }
        let stored = metadata.http.map(StoredResponse.init)
        if let stored {
            guard stored.status == 200 || stored.status == 203, Vary.fieldNames(in: stored.headers).isEmpty else { return false }
        }
        // an entry not from HTTP (stored by the caller) is used as it is, as the loader uses it
        switch stored.map(freshness(of:)) ?? .use {
        case .use:
            break
        case .validate:
            guard try await validateWholeCopy(metadata, stored: stored) else {
                _ = try await util.runIO { try disk.remove(key: key) }
                return false
            }
        case .drop:
            _ = try await util.runIO { try disk.remove(key: key) }
            return false
        }
        let checksum = metadata.checksum
        guard let file = try await util.runIO({ try disk.openData(forKey: key) }), file.checksum == checksum else {
            return false  // removed or replaced meanwhile (or it failed its checksum and is gone)
        }
        let current = try await util.runIO { try disk.metadata(forKey: key) } ?? metadata
        wholeCopy = file
        version = VideoVersion(unstored: ChunkRecord.ResourceInfo(
            totalLength: file.size, eTag: current.eTag, lastModified: current.lastModified, contentType: current.contentType,
            originalUrlString: current.originalUrlString ?? url, rangesSupported: true, http: current.http))
        try applyLength(file.size)
        return true
    }

    /// Asks the origin whether a stale whole copy is still current: one conditional request for
    /// its first byte. A `304` refreshes the copy's metadata (true); any other answer means the
    /// copy is not confirmed (false; its body is dropped unread).
    private func validateWholeCopy(_ metadata: CacheMetadata, stored: StoredResponse?) async throws -> Bool {
        var request = makeRequest()
        request.headers.add(name: "Range", value: "bytes=0-0")
        if let eTag = metadata.eTag { request.headers.add(name: "If-None-Match", value: eTag) }
        if let lastModified = metadata.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        let exchange = try await send(request)
        await drain(exchange.response)
        switch exchange.status {
        case 304:
            guard let stored, let http = metadata.http,
                  let refreshed = stored.revalidated(
                      withNotModified: exchange.headers, requestTime: exchange.requestTime, responseTime: exchange.responseTime)
            else { return true }  // not from HTTP: nothing to refresh
            let info = CacheMetadata.HTTPInfo(
                status: http.status, headers: refreshed.headers.fields.map { (name: $0.name, value: $0.value) },
                requestTime: exchange.requestTime, responseTime: exchange.responseTime, varyRequestHeaders: http.varyRequestHeaders)
            let (disk, key, checksum) = (util.manager.diskCache, key, metadata.checksum)
            let updated = try await util.runIO {
                try disk.updateMetadata(forKey: key) { entry in
                    guard entry.checksum == checksum else { return }
                    entry.http = info
                    entry.eTag = refreshed.eTag
                    entry.lastModified = refreshed.headers["Last-Modified"]
                }
            }
            return updated?.checksum == checksum
        case 200, 206:
            return false
        default:
            throw VideoError(.http, "\(url) answered \(exchange.status) to a revalidation", status: exchange.status)
        }
    }

    /// The next piece of the range from the whole copy: at most one chunk's worth.
    func readWholeCopy(_ file: DiskCache.DataFile) async throws -> Data? {
        guard let end else { return nil }
        let count = Int(min(Int64(chunkSize), end - position))
        let offset = position
        let data = try await util.runIO { () -> Data? in
            var data = Data(count: count)
            let read = try data.withUnsafeMutableBytes { try file.read(at: offset, into: $0) }
            return read == count ? data : nil
        }
        guard let data else {
            throw VideoError(.storage, "the disk cache's copy of \(url) ended before byte \(offset + Int64(count))")
        }
        position += Int64(count)
        yielded += Int64(count)
        statistics.update {
            $0.bytes += Int64(count)
            $0.bytesFromCache += Int64(count)
            $0.bytesFromDiskCache += Int64(count)
        }
        return data
    }
}
