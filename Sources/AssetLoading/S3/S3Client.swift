import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small S3 client on async-http-client: signed `GET` (with `Range` and conditions), `HEAD`, `PUT`
/// (multipart past ``Configuration-swift.struct/multipartThreshold``), bucket creation.
///
/// - Requests are signed with ``SigV4Signer`` at the moment they are sent; the secret, the session
///   token and the signature are never logged nor put in an error's message.
/// - Any endpoint (AWS, Ceph's radosgw, MinIO, R2...), path-style or virtual-hosted addressing.
/// - An error status throws ``LoaderError/http(_:)`` with S3's error code in the message
///   (`NoSuchKey` 404, `AccessDenied` 403, `SignatureDoesNotMatch` 403, `ExpiredToken` 400, never
///   retried nor taken for a clock that is off); `SlowDown` (503) and other
///   5xx are retried by ``put(_:body:contentType:deadline:)`` and ``head(_:deadline:)`` under the
///   configuration's ``AssetLoader/RetryPolicy``. ``send(_:_:query:headers:body:deadline:)`` makes one
///   attempt: the loader, which sends `s3://` loads through it, retries on its own.
/// - The `HTTPClient` is the caller's (the loader's, when it goes through the loader) and is not shut down here.
///
/// ```swift
/// let client = S3Client(configuration: try .standard(endpoint: "http://127.0.0.1:7480"), httpClient: .shared)
/// try await client.put(S3Location(bucket: "photos", key: "a b.png"), body: bytes, contentType: "image/png")
/// let head = try await client.head(S3Location(bucket: "photos", key: "a b.png"))
/// ```
public struct S3Client: Sendable {
    /// The endpoint, region, credentials and sizes the client was made with.
    public let configuration: Configuration
    let httpClient: HTTPClient
    let logger: Logger

    /// Creates a client that sends through `httpClient` (not shut down by the client).
    public init(configuration: Configuration, httpClient: HTTPClient, logger: Logger = Logger(label: "AssetLoading.S3Client")) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.logger = logger
    }

    /// One signed exchange, no retry. Fields named `Host`, `Authorization`, `X-Amz-Date`,
    /// `X-Amz-Content-Sha256` and `X-Amz-Security-Token` in `headers` are replaced; `Range`, `If-*`,
    /// `Content-Type`, `Content-MD5` and `x-amz-*` are signed, the others sent as they are.
    ///
    /// Returns the response for a status under 400 (`200`, `206`, `304`); throws
    /// ``LoaderError/http(_:)`` for the others (their body read and dropped, S3's code in
    /// ``LoaderError/s3Code``), a ``LoaderError`` when the exchange fails. A refusal because the
    /// clock is off is signed again once by the store's clock
    /// (``Configuration-swift.struct/correctsClockSkew``).
    public func send(
        _ method: HTTPMethod, _ location: S3Location, query: [(String, String)] = [], headers: HTTPHeaders = [:],
        body: [UInt8]? = nil, deadline: NIODeadline
    ) async throws(LoaderError) -> HTTPClientResponse {
        try await self.checkedExchange(method, location, query: query, headers: headers, body: body, deadline: deadline)
    }

    /// ``send(_:_:query:headers:body:deadline:)`` answering every status.
    func exchange(
        _ method: HTTPMethod, _ location: S3Location, query: [(String, String)] = [], headers: HTTPHeaders = [:],
        body: [UInt8]? = nil, deadline: NIODeadline
    ) async throws(LoaderError) -> HTTPClientResponse {
        let address = self.configuration.address(of: location, query: query)
        var request = HTTPClientRequest(url: address.url)
        request.method = method
        var signing: [(String, String)] = [("Host", address.host)]
        for field in headers {
            let name = field.name.lowercased()
            if Self.replacedFields.contains(name) { continue }
            request.headers.add(name: field.name, value: field.value)
            if Self.signs(name) { signing.append((field.name, field.value)) }
        }
        let payloadHash = body.map { SigV4Signer.sha256Hex($0) } ?? SigV4Signer.emptyPayloadHash
        signing.append(("x-amz-content-sha256", payloadHash))
        let signer = SigV4Signer(credentials: self.configuration.credentials, region: self.configuration.region)
        let signed = signer.sign(
            method: method.rawValue, path: address.path, query: query, headers: signing, payloadHash: payloadHash, date: self.configuration.signingDate)
        request.headers.replaceOrAdd(name: "Host", value: address.host)
        request.headers.replaceOrAdd(name: "x-amz-content-sha256", value: payloadHash)
        for field in signed.fields {
            request.headers.replaceOrAdd(name: field.name, value: field.value)
        }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            return try await self.httpClient.execute(request, deadline: deadline, logger: self.logger)
        } catch {
            throw LoaderError.mapping(error)
        }
    }

    /// The fields the client sets itself.
    static let replacedFields: Set<String> = ["host", "authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]

    /// Whether a field is signed: `Range`, `If-*`, `Content-Type`, `Content-MD5`, `x-amz-*`.
    static func signs(_ lowercasedName: String) -> Bool {
        lowercasedName == "range" || lowercasedName.hasPrefix("if-") || lowercasedName == "content-type"
            || lowercasedName == "content-md5" || lowercasedName.hasPrefix("x-amz-")
    }
}
