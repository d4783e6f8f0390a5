/// One scripted answer of the ``TestOrigin``: status, header fields, body, and an optional delay before
/// the response head is sent.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, in order; a `Content-Length` here overrides the one the body declares.
    public var headers: [(String, String)]
    /// The body and how it is sent.
    public var body: TestBody
    /// How long to wait before sending the response head, or nil to answer at once.
    public var delay: Duration?
    /// A gate to wait for before sending the response head (then ``delay``), or nil. When the origin
    /// stops first, the connection is closed without a response.
    public var gate: TestGate?

    public init(
        status: Int = 200,
        headers: [(String, String)] = [],
        body: TestBody = .empty,
        delay: Duration? = nil,
        gate: TestGate? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.gate = gate
    }

    /// A 200 with a UTF-8 text body.
    public static func ok(_ text: String, headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: 200, headers: headers, body: .text(text))
    }

    /// A redirect to `location` (an absolute URL or a path on the origin).
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    /// The first value of a header field (case-insensitive name), or nil.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
