#if canImport(NIOHTTP1)
import NIOHTTP1

extension HeaderFields {
    /// The fields of NIO's (and async-http-client's) `HTTPHeaders`, in order.
    public init(_ headers: HTTPHeaders) {
        self.init(headers.map { ($0.name, $0.value) })
    }

    /// These fields as NIO's `HTTPHeaders`, in order.
    public var httpHeaders: HTTPHeaders {
        HTTPHeaders(self.fields.map { ($0.name, $0.value) })
    }
}
#endif
