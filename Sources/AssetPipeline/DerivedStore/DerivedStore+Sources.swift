import AssetLoading
import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DerivedStore {
    /// The most bytes a source record may have (a disk metadata record: a few hundred bytes).
    static let maxRecordBytes = 64 * 1024
    /// The source records remembered as written; past it the memory is cleared (a record is then
    /// written again at most once more).
    static let maxRememberedRecords = 16_384
    /// The `Content-Type` of a source record.
    static let recordContentType = "application/vnd.assetpipe.source+json"

    /// The object of the record of the source stored under `cacheKey`: the prefix, `sources/`, and
    /// the key's SHA-256 in hex.
    public func recordLocation(forCacheKey cacheKey: String) -> S3Location {
        var prefix = self.configuration.location.key
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let name = "sources/" + SigV4Signer.sha256Hex(Array(cacheKey.utf8))
        return S3Location(bucket: self.configuration.location.bucket, key: prefix.isEmpty ? name : "\(prefix)/\(name)")
    }

    /// The record of the source stored under `cacheKey` (its disk metadata: validators, header
    /// fields and the times of the exchange that fetched it); nil when there is none, it does not
    /// parse or name another key, or the store fails or is slow (never thrown). Whether it may be
    /// trusted now is the loader's call (`AssetLoader.recordedResponse(for:record:)`).
    public func sourceRecord(forCacheKey cacheKey: String) async -> CacheMetadata? {
        let found = await self.get(self.recordLocation(forCacheKey: cacheKey), maxBytes: Self.maxRecordBytes)
        let record = found.flatMap { CacheMetadata(jsonBytes: Array($0.data)) }.flatMap { $0.key == cacheKey ? $0 : nil }
        self.countRecordRead(found: record != nil)
        return record
    }

    /// Writes the record of a source loaded from HTTP (its disk metadata, access counts cleared) in
    /// the background, once per version and exchange: so that a process that never saw the source
    /// can name its variants while the source is fresh, without asking the origin. Returns at once;
    /// a source without HTTP metadata (held in memory, `no-store`, a local file) has no record.
    public func recordSource(_ metadata: CacheMetadata) {
        guard metadata.http != nil else { return }
        var record = metadata
        record.accessCount = 0
        record.lastAccessTime = record.createdDate
        let identity = [record.key, record.eTag ?? "", record.lastModified ?? "", record.checksum,
                        // whole seconds: the time read back from disk has lost the download's fraction
                        record.http.map { "\(Int64($0.responseTime.timeIntervalSince1970.rounded(.down)))" } ?? ""]
            .joined(separator: "\u{1F}")
        self.put(self.recordLocation(forCacheKey: record.key), body: record.jsonBytes, contentType: Self.recordContentType) { written in
            if written.contains(identity) { return false }
            if written.count >= Self.maxRememberedRecords { written.removeAll(keepingCapacity: true) }
            written.insert(identity)
            return true
        }
    }
}
