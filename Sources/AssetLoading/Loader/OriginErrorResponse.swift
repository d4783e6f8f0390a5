/// The answer of an origin that failed with a `5xx`, kept for a caller that passes answers on (a
/// reverse proxy): the ``LoaderError/underlying`` of the ``LoaderError/http(_:)`` thrown for a request
/// with ``AssetRequest/acceptsAnyStatus``.
public struct OriginErrorResponse: Error, Sendable {
    /// The status the origin sent.
    public var status: Int
    /// The origin's header fields.
    public var headers: HeaderFields
    /// The start of the body, at most 64 KiB.
    public var body: [UInt8]
    /// Whether the body was longer than what is kept here.
    public var bodyTruncated: Bool
}
