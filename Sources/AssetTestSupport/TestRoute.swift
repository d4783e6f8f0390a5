/// What the ``TestOrigin`` answers on one path.
public enum TestRoute: Sendable {
    /// The same response to every request.
    case response(TestResponse)
    /// The n-th request gets the n-th response; once they run out, the last one repeats
    /// (for example a 500 then a 200, or a 429 with `Retry-After` then a 200).
    case sequence([TestResponse])
    /// A resource with validators and byte ranges: 304 for matching `If-None-Match` / `If-Modified-Since`,
    /// 206 / 416 for `Range`, `If-Range` honoured.
    case resource(TestResource)
    /// A redirect to `location`.
    case redirect(to: String, status: Int = 302)
    /// A closure computing the answer from the recorded request.
    case handler(@Sendable (RecordedRequest) async throws -> TestResponse)
}
