import Foundation

/// A resource served with real validation and range semantics (RFC 9110 13, 14).
///
/// - `If-None-Match` (weak comparison, `*` matches) answers 304; otherwise `If-Modified-Since` answers 304
///   when the resource has not changed since.
/// - `Range: bytes=…` (one range) answers 206 with `Content-Range`, or 416 with `Content-Range: bytes */LENGTH`
///   when no byte of the range exists; several ranges or an unparsable header are ignored (200).
/// - `If-Range` with the strong ETag or the exact `Last-Modified` keeps the range; anything else answers 200.
/// - With ``supportsRanges`` false, `Range` is ignored and `Accept-Ranges: none` is sent.
public struct TestResource: Sendable {
    /// The full content.
    public var content: TestContent
    /// The `ETag` field value, quotes included (`"v1"` or `W/"v1"`), or nil.
    public var eTag: String?
    /// The `Last-Modified` date, or nil.
    public var lastModified: Date?
    /// Other header fields sent on 200, 206 and 304 (`Cache-Control`, `Expires`, `Vary`, `Content-Type`...).
    public var headers: [(String, String)]
    /// Whether `Range` requests are honoured. Default `true`.
    public var supportsRanges: Bool
    /// Whether conditional requests can answer 304. Default `true`.
    public var supportsConditionalRequests: Bool

    public init(
        content: TestContent,
        eTag: String? = nil,
        lastModified: Date? = nil,
        headers: [(String, String)] = [],
        supportsRanges: Bool = true,
        supportsConditionalRequests: Bool = true
    ) {
        self.content = content
        self.eTag = eTag
        self.lastModified = lastModified
        self.headers = headers
        self.supportsRanges = supportsRanges
        self.supportsConditionalRequests = supportsConditionalRequests
    }

    /// The answer to `request`.
    public func response(to request: RecordedRequest) -> TestResponse {
        var headers = self.headers
        if let eTag { headers.append(("ETag", eTag)) }
        if let lastModified { headers.append(("Last-Modified", OriginDate.format(lastModified))) }
        if self.supportsConditionalRequests, self.isNotModified(request) {
            return TestResponse(status: 304, headers: headers, body: .empty)
        }
        headers.append(("Accept-Ranges", self.supportsRanges ? "bytes" : "none"))
        let length = self.content.count
        if self.supportsRanges, request.method == "GET", let rangeValue = request.header("Range"),
            self.ifRangeAllows(request.header("If-Range"))
        {
            switch ByteRangeRequest.parse(rangeValue, length: length) {
            case .satisfiable(let range):
                headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"))
                return TestResponse(status: 206, headers: headers, body: self.content.body(range: range))
            case .unsatisfiable:
                headers.append(("Content-Range", "bytes */\(length)"))
                return TestResponse(status: 416, headers: headers, body: .empty)
            case .ignored:
                break
            }
        }
        return TestResponse(status: 200, headers: headers, body: self.content.body())
    }

    private func isNotModified(_ request: RecordedRequest) -> Bool {
        guard request.method == "GET" || request.method == "HEAD" else { return false }
        if let ifNoneMatch = request.header("If-None-Match") {
            guard let eTag else { return false }
            let current = Self.opaqueTag(eTag)
            return ifNoneMatch.split(separator: ",").contains { member in
                let tag = member.trimmingCharacters(in: .whitespaces)
                return tag == "*" || Self.opaqueTag(tag) == current
            }
        }
        if let ifModifiedSince = request.header("If-Modified-Since"), let lastModified,
            let since = OriginDate.parse(ifModifiedSince)
        {
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    private func ifRangeAllows(_ ifRange: String?) -> Bool {
        guard let ifRange = ifRange?.trimmingCharacters(in: .whitespaces) else { return true }
        if ifRange.hasPrefix("\"") || ifRange.hasPrefix("W/") {
            // strong comparison: a weak tag on either side never matches
            guard let eTag, !eTag.hasPrefix("W/"), !ifRange.hasPrefix("W/") else { return false }
            return ifRange == eTag
        }
        guard let lastModified, let date = OriginDate.parse(ifRange) else { return false }
        return date.timeIntervalSince1970 == lastModified.timeIntervalSince1970.rounded(.down)
    }

    private static func opaqueTag(_ tag: some StringProtocol) -> Substring {
        tag.hasPrefix("W/") ? Substring(tag.dropFirst(2)) : Substring(tag)
    }
}
