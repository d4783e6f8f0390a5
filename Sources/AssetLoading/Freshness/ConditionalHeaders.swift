/// The fields of a conditional request that revalidates a stored response (RFC 9111 4.3.1).
public struct ConditionalHeaders: Sendable, Hashable {
    /// The `If-None-Match` value: the stored entity tag, if any.
    public var ifNoneMatch: String?
    /// The `If-Modified-Since` value: the stored `Last-Modified`, if any.
    public var ifModifiedSince: String?

    /// Creates the fields from the stored `ETag` and `Last-Modified` values, as sent; nil leaves a field out.
    public init(ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    /// Whether there is no validator: the request can only be unconditional.
    public var isEmpty: Bool { self.ifNoneMatch == nil && self.ifModifiedSince == nil }

    /// The fields to add to the request, `If-None-Match` first.
    public var fields: HeaderFields {
        var fields = HeaderFields()
        if let ifNoneMatch { fields.append(name: "If-None-Match", value: ifNoneMatch) }
        if let ifModifiedSince { fields.append(name: "If-Modified-Since", value: ifModifiedSince) }
        return fields
    }
}
