import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How responses with `Vary` are kept, one entry per variant (RFC 9111 4.1).
///
/// A response that varies is stored under a variant key: the cache key plus the normalised values of the
/// request fields its `Vary` names. The cache key itself then holds an empty index entry whose only
/// content is the `Vary` field, so that a later request finds its variant: the index's field names and the
/// request's values give the key to look up.
enum VaryIndex {
    /// The content type that marks an index entry.
    static let contentType = "application/vnd.assetpipe.vary-index"

    /// Whether `metadata` is an index entry.
    static func isIndex(_ metadata: CacheMetadata) -> Bool {
        metadata.contentType == Self.contentType && metadata.size == 0
    }

    /// The field names an index entry lists.
    static func fieldNames(ofIndex metadata: CacheMetadata) -> [String] {
        let headers = HeaderFields((metadata.http?.headers ?? []).map { ($0.name, $0.value) })
        return Vary.fieldNames(in: headers)
    }

    /// The key of the variant of `baseKey` selected by `request`'s values of `fieldNames`.
    static func variantKey(baseKey: String, fieldNames: [String], request: HeaderFields) -> String {
        let parts = fieldNames.map { name -> String in
            let values = request.values(for: name)
            return values.isEmpty ? name : name + "=" + Vary.normalised(values).joined(separator: ",")
        }
        return baseKey + "#vary(" + parts.joined(separator: ";") + ")"
    }

    /// The entry info of an index listing `fieldNames`.
    static func indexInfo(kind: AssetKind, url: String, fieldNames: [String], time: Date) -> DiskCache.EntryInfo {
        DiskCache.EntryInfo(
            kind: kind, originalUrlString: url, contentType: Self.contentType,
            http: CacheMetadata.HTTPInfo(
                status: 200, headers: [(name: "Vary", value: fieldNames.joined(separator: ", "))], requestTime: time,
                responseTime: time))
    }
}
