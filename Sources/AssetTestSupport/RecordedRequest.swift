/// A request as it reached the ``TestOrigin``.
public struct RecordedRequest: Sendable, Hashable {
    /// The method, such as `GET`.
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The query string without `?`, or nil.
    public var query: String?
    /// The request header fields, in order.
    public var headers: [Header]
    /// 1 for the first request to this path, 2 for the second...
    public var sequenceNumber: Int

    /// One request header field.
    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(method: String, path: String, query: String?, headers: [Header], sequenceNumber: Int) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.sequenceNumber = sequenceNumber
    }

    /// The first value of a header field (case-insensitive name), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return self.headers.first { $0.name.lowercased() == lowered }?.value
    }
}
