import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension S3Client {
    /// `HEAD` of an object: its size, `ETag`, `Last-Modified` and type. A missing object throws
    /// ``LoaderError/http(_:)`` 404 (`NoSuchKey`).
    public func head(_ location: S3Location, deadline: NIODeadline = .now() + .seconds(60)) async throws(LoaderError) -> S3ObjectInfo {
        try await self.withRetries { () async throws(LoaderError) -> S3ObjectInfo in
            let response = try await self.send(.HEAD, location, deadline: deadline)
            let headers = response.headers
            return S3ObjectInfo(
                size: headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0, eTag: headers.first(name: "ETag"),
                lastModified: headers.first(name: "Last-Modified"), contentType: headers.first(name: "Content-Type"))
        }
    }

    /// Stores `body` at `location`: one `PUT`, or a multipart upload when the body reaches
    /// ``Configuration-swift.struct/multipartThreshold``. Returns the `ETag` the store gave (radosgw
    /// gives an empty one for a multipart upload: then nil).
    @discardableResult
    public func put(
        _ location: S3Location, body: [UInt8], contentType: String? = nil, deadline: NIODeadline = .now() + .seconds(300)
    ) async throws(LoaderError) -> String? {
        if body.count >= self.configuration.multipartThreshold {
            return try await self.putMultipart(location, body: body, contentType: contentType, deadline: deadline)
        }
        var headers = HTTPHeaders()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        return try await self.withRetries { () async throws(LoaderError) -> String? in
            let response = try await self.send(.PUT, location, headers: headers, body: body, deadline: deadline)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return response.headers.first(name: "ETag")
        }
    }

    /// Removes an object (`DELETE`; a missing one is not an error in S3).
    public func delete(_ location: S3Location, deadline: NIODeadline = .now() + .seconds(60)) async throws(LoaderError) {
        try await self.withRetries { () async throws(LoaderError) in
            let response = try await self.send(.DELETE, location, deadline: deadline)
            _ = try? await response.body.collect(upTo: 64 * 1024)
        }
    }

    /// Creates a bucket (`PUT /bucket`); one that exists and is the caller's is not an error.
    public func createBucket(_ bucket: String, deadline: NIODeadline = .now() + .seconds(60)) async throws(LoaderError) {
        do {
            let response = try await self.send(.PUT, S3Location(bucket: bucket, key: ""), deadline: deadline)
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch where error.status == 409 && error.message.contains("BucketAlreadyOwnedByYou") {
            return
        }
    }
}
