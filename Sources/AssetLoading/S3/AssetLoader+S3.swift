import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension AssetLoader {
    /// An `s3://bucket/key` exchange: `GET` or `HEAD` of the object, signed for the configured store
    /// (``Configuration-swift.struct/s3``) and sent on the loader's own client. The object's `ETag`
    /// and `Last-Modified` then validate as an origin's would; an error status (but `416`) throws
    /// ``LoaderError/http(_:)`` naming S3's code, retried by the loader's ``RetryPolicy`` when it is
    /// `SlowDown` or another 5xx. Under a ``DestinationPolicy`` only its
    /// ``DestinationPolicy/allowedS3Buckets`` are read.
    func sendToS3(_ request: HTTPClientRequest, deadline: NIODeadline) async throws(LoaderError) -> HTTPClientResponse {
        guard let configuration = self.configuration.s3 else {
            throw LoaderError.unsupportedScheme.with(
                message: "\(request.url): no S3 endpoint is configured (--s3-endpoint, AWS_ENDPOINT_URL or the library's configuration)")
        }
        guard request.method == .GET || request.method == .HEAD else {
            throw LoaderError.invalidURL.with(message: "\(request.method.rawValue) \(request.url): the loader reads s3:// objects only (S3Client writes)")
        }
        let location = try S3Location(url: request.url)
        if let policy = self.configuration.destinationPolicy, !policy.allowedS3Buckets.contains(location.bucket) {
            throw LoaderError.forbiddenDestination.with(message: "the bucket \(location.bucket) is not an allowed bucket")
        }
        let client = S3Client(configuration: configuration, httpClient: self.clients.shared, logger: self.logger)
        // a 416 goes back as it came: its Content-Range tells a range reader the length
        return try await client.checkedExchange(request.method, location, headers: request.headers, deadline: deadline) {
            $0 == .rangeNotSatisfiable
        }
    }
}
