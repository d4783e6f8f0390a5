import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension S3Client {
    /// The objects whose keys start with `prefix` in `bucket`, every page of `ListObjectsV2` read
    /// (1,000 keys a page).
    public func listObjects(
        bucket: String, prefix: String, deadline: NIODeadline = .now() + .seconds(300)
    ) async throws(LoaderError) -> [S3ObjectSummary] {
        var objects: [S3ObjectSummary] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let page = query
            let text = try await self.withRetries { () async throws(LoaderError) -> String in
                let response = try await self.send(.GET, S3Location(bucket: bucket, key: ""), query: page, deadline: deadline)
                return try await Self.text(of: response)
            }
            objects += Self.summaries(in: text)
            token = Self.element("IsTruncated", in: text) == "true" ? Self.element("NextContinuationToken", in: text) : nil
        } while token != nil
        return objects
    }

    /// The `<Contents>` of a listing page.
    static func summaries(in xml: String) -> [S3ObjectSummary] {
        var summaries: [S3ObjectSummary] = []
        var rest = Substring(xml)
        while let open = rest.firstRange(of: "<Contents>"), let close = rest[open.upperBound...].firstRange(of: "</Contents>") {
            let item = String(rest[open.upperBound..<close.lowerBound])
            if let key = Self.element("Key", in: item) {
                summaries.append(S3ObjectSummary(
                    key: key, lastModified: Self.element("LastModified", in: item).flatMap(S3ObjectSummary.parseTimestamp),
                    size: Self.element("Size", in: item).flatMap { Int64($0) } ?? 0))
            }
            rest = rest[close.upperBound...]
        }
        return summaries
    }
}
