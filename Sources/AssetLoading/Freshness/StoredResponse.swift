import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the caching rules need to know about a stored response (RFC 9111 3, 4.2.3).
public struct StoredResponse: Sendable, Hashable {
    /// The response status code.
    public var status: Int
    /// The stored response header fields (without `Connection` and the fields it names).
    public var headers: HeaderFields
    /// When the request that produced this response was sent (`request_time` in RFC 9111 4.2.3).
    public var requestTime: Date
    /// When the response was received (`response_time` in RFC 9111 4.2.3).
    public var responseTime: Date
    /// The request header fields named by the response's `Vary`, as they were sent (4.1).
    public var varyingRequestHeaders: HeaderFields

    /// Creates a stored-response view.
    ///
    /// - Parameters:
    ///   - status: the response status code.
    ///   - headers: the stored response header fields.
    ///   - requestTime: when the request that produced the response was sent.
    ///   - responseTime: when the response was received.
    ///   - varyingRequestHeaders: the request's fields named by `Vary`; ``Vary/selectingHeaders(responseHeaders:requestHeaders:)``
    ///     extracts them from the full request.
    public init(
        status: Int,
        headers: HeaderFields,
        requestTime: Date,
        responseTime: Date,
        varyingRequestHeaders: HeaderFields = HeaderFields()
    ) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyingRequestHeaders = varyingRequestHeaders
    }

    /// The parsed `Cache-Control` directives.
    public var cacheControl: CacheControl { CacheControl(headers: self.headers) }

    /// The `Date` value, or nil when absent or invalid.
    public var date: Date? { self.headers["Date"].flatMap { HTTPDate.parse($0, now: self.responseTime) } }

    /// The `Last-Modified` value, or nil when absent or invalid.
    public var lastModified: Date? {
        self.headers["Last-Modified"].flatMap { HTTPDate.parse($0, now: self.responseTime) }
    }

    /// The `ETag` value (with its `W/` prefix and quotes), or nil.
    public var eTag: String? { self.headers["ETag"] }

    /// The `Age` value in seconds: the first member of the field; nil when absent or invalid (RFC 9111 5.1).
    public var age: Int? {
        guard let first = self.headers.listMembers(for: "Age").first else { return nil }
        return CacheControl.deltaSeconds(first)
    }

    /// Whether the response carries a validator usable in a conditional request.
    public var hasValidator: Bool { self.eTag != nil || self.headers["Last-Modified"] != nil }

    /// The conditional request fields to revalidate this response (RFC 9111 4.3.1): `If-None-Match` with
    /// the stored ETag and `If-Modified-Since` with the stored `Last-Modified`. Empty without validators.
    public var conditionalHeaders: ConditionalHeaders {
        ConditionalHeaders(ifNoneMatch: self.eTag, ifModifiedSince: self.headers["Last-Modified"])
    }
}

extension StoredResponse {
    /// The stored response a disk cache entry's HTTP metadata describes.
    public init(_ http: CacheMetadata.HTTPInfo) {
        self = CachedEntry.storedResponse(http)
    }
}
