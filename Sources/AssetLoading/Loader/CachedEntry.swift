import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A disk cache entry as the loader sees it: its metadata and, when it came from HTTP, the stored
/// response the freshness rules judge.
struct CachedEntry: Sendable {
    let metadata: CacheMetadata
    let stored: StoredResponse?
    /// The first bytes of the data, read with the metadata (see ``AssetResponse/bodyPrefix``).
    var bodyPrefix: [UInt8]?

    init(metadata: CacheMetadata, bodyPrefix: [UInt8]? = nil) {
        self.metadata = metadata
        self.stored = metadata.http.map(Self.storedResponse)
        self.bodyPrefix = bodyPrefix
    }

    static func storedResponse(_ http: CacheMetadata.HTTPInfo) -> StoredResponse {
        StoredResponse(
            status: http.status,
            headers: HeaderFields(http.headers.map { ($0.name, $0.value) }),
            requestTime: http.requestTime,
            responseTime: http.responseTime,
            varyingRequestHeaders: HeaderFields(http.varyRequestHeaders.compactMap { pair in pair.value.map { (pair.name, $0) } })
        )
    }

    /// What to keep of an HTTP exchange in the metadata.
    static func httpInfo(
        status: Int, responseHeaders: HeaderFields, requestHeaders: HeaderFields, requestTime: Date, responseTime: Date
    ) -> CacheMetadata.HTTPInfo {
        let stored = FreshnessPolicy.headersToStore(responseHeaders)
        let vary = Vary.fieldNames(in: responseHeaders).filter { $0 != "*" }.map { name in
            (name: name, value: requestHeaders.combinedValue(for: name))
        }
        return CacheMetadata.HTTPInfo(
            status: status,
            headers: stored.fields.map { (name: $0.name, value: $0.value) },
            requestTime: requestTime,
            responseTime: responseTime,
            varyRequestHeaders: vary
        )
    }

    /// The stored response fields, or none for an entry not from HTTP.
    var headers: HeaderFields { self.stored?.headers ?? HeaderFields() }

    /// Whether the request's fields match the stored response's `Vary` (always for non-HTTP entries).
    func matchesVary(_ request: HeaderFields) -> Bool {
        guard let stored else { return true }
        return Vary.matches(stored: stored, request: request)
    }
}
