import AssetLoading
import AssetStorage

/// The version of a resource a read serves: the chunk store's generation (or a private one when
/// the response may not be stored) and what the origin said of it.
struct VideoVersion: Sendable {
    var generation: UInt64
    var info: ChunkRecord.ResourceInfo
    /// Whether its chunks are kept in the chunk store (false for `no-store` responses).
    var stored: Bool

    init(record: ChunkRecord) {
        generation = record.generation
        info = record.info
        stored = true
    }

    init(unstored info: ChunkRecord.ResourceInfo) {
        generation = UInt64.random(in: 1...UInt64.max)
        self.info = info
        stored = false
    }

    /// The `If-Range` value: the strong ETag, else `Last-Modified`; never a weak ETag.
    var ifRange: String? {
        if let tag = info.eTag.flatMap(EntityTag.init), !tag.isWeak { return tag.fieldValue }
        return info.lastModified
    }

    /// Whether `fresh` (from a response) describes the same bytes as `stored`: equal strong
    /// ETags, else equal `Last-Modified`, else (no validator on either side) equal lengths; and
    /// never two different known lengths.
    static func isSame(_ stored: ChunkRecord.ResourceInfo, _ fresh: ChunkRecord.ResourceInfo) -> Bool {
        if let a = stored.totalLength, let b = fresh.totalLength, a != b { return false }
        let storedTag = stored.eTag.flatMap(EntityTag.init), freshTag = fresh.eTag.flatMap(EntityTag.init)
        if let storedTag, let freshTag, storedTag.stronglyMatches(freshTag) { return true }
        if storedTag != nil || freshTag != nil {
            // weak or different tags: only an equal Last-Modified beside equal weak tags proves it
            guard let storedTag, let freshTag, storedTag.weaklyMatches(freshTag) else { return false }
        }
        if let a = stored.lastModified, let b = fresh.lastModified { return a == b }
        if stored.lastModified != nil || fresh.lastModified != nil { return false }
        return stored.totalLength != nil && stored.totalLength == fresh.totalLength
    }

    /// Whether `fresh` (a range response) names another version than `stored`: two different
    /// known lengths, two entity tags that do not match strongly, or (without tags) two different
    /// `Last-Modified`. A response that names no validator contradicts nothing.
    static func contradicts(_ stored: ChunkRecord.ResourceInfo, _ fresh: ChunkRecord.ResourceInfo) -> Bool {
        if let a = stored.totalLength, let b = fresh.totalLength, a != b { return true }
        if let storedTag = stored.eTag, let freshTag = fresh.eTag {
            guard let a = EntityTag(storedTag), let b = EntityTag(freshTag) else { return storedTag != freshTag }
            return !a.stronglyMatches(b)
        }
        if stored.eTag == nil, fresh.eTag == nil, let a = stored.lastModified, let b = fresh.lastModified { return a != b }
        return false
    }
}
