/// What `HEAD` says of an object.
public struct S3ObjectInfo: Sendable, Hashable {
    /// `Content-Length`.
    public var size: Int64
    /// `ETag` as sent (quoted).
    public var eTag: String?
    /// `Last-Modified` as sent.
    public var lastModified: String?
    /// `Content-Type`.
    public var contentType: String?

    /// Creates a value.
    public init(size: Int64, eTag: String?, lastModified: String?, contentType: String?) {
        self.size = size
        self.eTag = eTag
        self.lastModified = lastModified
        self.contentType = contentType
    }
}
