import AssetStorage
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AssetLoader {
    /// What one exchange with the origin produced.
    enum Exchanged: Sendable {
        /// A full body, stored or held in memory.
        case full(AssetResponse)
        /// `304 Not Modified` to a conditional request.
        case notModified(NotModified)
    }

    /// The fields and times of a `304`.
    struct NotModified: Sendable {
        var headers: HeaderFields
        var requestTime: Date
        var responseTime: Date
        var attempts: Int
        var route: LoadRoute
    }

    /// The bytes collected before one blocking write to the cache.
    static let writeBatchSize = 256 * 1024
    /// The most bytes of an error response's body read to keep its connection reusable.
    static let errorBodyDrainLimit = 64 * 1024

    /// One GET exchange (redirects followed by the client), its body streamed into the cache (or memory
    /// when not storable). Error statuses throw ``LoaderError/http(_:)`` carrying any `Retry-After`.
    func exchange(_ target: LoadTarget, conditional: ConditionalHeaders?, attempt: Int, start: Date) async throws -> Exchanged {
        var request = HTTPClientRequest(url: target.request.address)
        request.method = .GET
        for field in target.request.headers {
            request.headers.add(name: field.name, value: field.value)
        }
        if let conditional {
            for field in conditional.fields {
                request.headers.replaceOrAdd(name: field.name, value: field.value)
            }
        }
        let clock = self.configuration.clock
        let deadline = NIODeadline.now() + Self.timeAmount(self.configuration.totalTimeout)
        let requestTime = clock.now
        let sent = try await self.send(request, deadline: deadline, followRedirects: target.request.followRedirects, kind: target.request.kind)
        let response = sent.response
        let responseTime = clock.now
        let status = Int(response.status.code)
        let headers = HeaderFields(response.headers)

        if status == 304, conditional != nil {
            await Self.drain(response)
            return .notModified(NotModified(
                headers: headers, requestTime: requestTime, responseTime: responseTime, attempts: attempt, route: sent.route))
        }
        let passedOn = target.request.acceptsAnyStatus && status < 500
        if status == 206, !passedOn, target.request.headers["Range"] == nil {
            // a part of what, the loader cannot tell: never taken for the whole body
            await Self.drain(response)
            throw LoaderError.invalidResponse.with(message: "\(target.request.url) answered 206 Partial Content to a request without Range")
        }
        guard status == 200 || status == 203 || passedOn else {
            let retryAfter = RetryPolicy.retryAfter(headers["Retry-After"], now: responseTime)
            var underlying: (any Error)?
            if target.request.acceptsAnyStatus {
                let body = try? await response.body.collect(upTo: Self.errorBodyDrainLimit + 1)
                let bytes = body.map { Array($0.readableBytesView) } ?? []
                underlying = OriginErrorResponse(
                    status: status, headers: headers, body: Array(bytes.prefix(Self.errorBodyDrainLimit)),
                    bodyTruncated: body == nil || bytes.count > Self.errorBodyDrainLimit)
            } else {
                await Self.drain(response)
            }
            throw LoaderError.http(status).with(
                message: "\(target.request.address) answered \(status)", underlying: underlying, retryAfter: retryAfter)
        }

        let kind = target.request.kind
        let limit = self.configuration.maxBodySize(for: kind)
        let contentLength = headers["Content-Length"].flatMap { Int64($0) }
        if let contentLength, contentLength > limit {
            throw LoaderError.tooLarge.with(message: "\(target.request.address): \(contentLength) bytes, at most \(limit) allowed for \(kind)")
        }
        let storagePolicy: StoragePolicy
        if self.policy.isStorable(status: status, method: "GET", responseHeaders: headers, requestHeaders: target.request.headers) {
            storagePolicy = self.configuration.storagePolicy?(target.request, status, headers) ?? .allowed
        } else {
            storagePolicy = .notAllowed
        }
        let body: AssetResponse.Body
        let received: Int64
        if storagePolicy == .allowed {
            let info = DiskCache.EntryInfo(
                kind: kind, originalUrlString: target.request.address, contentType: headers["Content-Type"],
                eTag: headers["ETag"], lastModified: headers["Last-Modified"],
                http: CachedEntry.httpInfo(
                    status: status, responseHeaders: headers, requestHeaders: target.request.headers,
                    requestTime: requestTime, responseTime: responseTime))
            let varying = Vary.fieldNames(in: headers)
            let key =
                varying.isEmpty
                ? target.cacheKey
                : VaryIndex.variantKey(baseKey: target.cacheKey, fieldNames: varying, request: target.request.headers)
            let metadata = try await self.streamToCache(
                response.body, key: key, info: info, limit: limit, expectedSize: contentLength, deadline: deadline)
            if !varying.isEmpty {
                let cache = self.diskCache
                let index = VaryIndex.indexInfo(kind: kind, url: target.request.address, fieldNames: varying, time: responseTime)
                let baseKey = target.cacheKey
                try await self.runIO { _ = try cache.store(Data(), forKey: baseKey, info: index) }
            }
            body = .cacheEntry(metadata)
            received = metadata.size
        } else {
            let data = try await self.collect(response.body, limit: limit, expectedSize: contentLength, deadline: deadline)
            body = .data(data)
            received = Int64(data.count)
        }
        return .full(
            AssetResponse(
                url: target.request.address, cacheKey: body.cacheKey ?? target.cacheKey, kind: kind, outcome: .downloaded, status: status,
                headers: headers, body: body, storagePolicy: storagePolicy, size: received, bytesReceived: received, attempts: attempt,
                timings: AssetResponse.Timings(start: start, responseHead: responseTime, end: clock.now), route: sent.route))
    }

    /// Streams `body` into a cache writer in batches written on the I/O pool, and commits it when whole.
    /// Any failure discards the write: nothing is stored.
    private func streamToCache(
        _ body: HTTPClientResponse.Body, key: String, info: DiskCache.EntryInfo, limit: Int64, expectedSize: Int64?,
        deadline: NIODeadline
    ) async throws -> CacheMetadata {
        let cache = self.diskCache
        let writer = try await self.runIO { try cache.makeWriter(forKey: key, maxBytes: limit) }
        do {
            var pending = ByteBuffer()
            var total: Int64 = 0
            do {
                for try await chunk in body {
                    total += Int64(chunk.readableBytes)
                    try Self.check(total: total, limit: limit, expectedSize: expectedSize, deadline: deadline)
                    pending.writeImmutableBuffer(chunk)
                    if pending.readableBytes >= Self.writeBatchSize {
                        let batch = pending
                        pending = ByteBuffer()
                        try await self.runIO { try batch.withUnsafeReadableBytes { try writer.append($0) } }
                    }
                }
            } catch {
                throw Self.bodyFailure(error)
            }
            let rest = pending
            return try await self.runIO {
                if rest.readableBytes > 0 {
                    try rest.withUnsafeReadableBytes { try writer.append($0) }
                }
                do {
                    return try writer.commit(info, expectedSize: expectedSize)
                } catch let error as StorageError where error.code == .corrupt {
                    throw LoaderError.truncated.with(message: error.message, underlying: error)
                }
            }
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Collects a body that may not be stored into memory, bounded by `limit`.
    private func collect(_ body: HTTPClientResponse.Body, limit: Int64, expectedSize: Int64?, deadline: NIODeadline) async throws -> Data {
        var data = Data()
        do {
            for try await chunk in body {
                try Self.check(total: Int64(data.count + chunk.readableBytes), limit: limit, expectedSize: expectedSize, deadline: deadline)
                data.append(contentsOf: chunk.readableBytesView)
            }
        } catch {
            throw Self.bodyFailure(error)
        }
        if let expectedSize, expectedSize != Int64(data.count) {
            throw LoaderError.truncated.with(message: "\(data.count) bytes received, \(expectedSize) announced")
        }
        return data
    }

    /// Fails a body that passes the limit, its announced length, or the whole-exchange deadline.
    private static func check(total: Int64, limit: Int64, expectedSize: Int64?, deadline: NIODeadline) throws {
        if total > limit {
            throw LoaderError.tooLarge.with(message: "the body passed the \(limit) bytes allowed")
        }
        if let expectedSize, total > expectedSize {
            throw LoaderError.tooLarge.with(message: "the body is longer than its Content-Length \(expectedSize)")
        }
        if NIODeadline.now() > deadline {
            throw LoaderError.timeout.with(message: "the body did not arrive within the total timeout")
        }
    }

    /// An error while a body streams: a broken connection means the body was cut short.
    private static func bodyFailure(_ error: any Error) -> LoaderError {
        let failure = LoaderError.mapping(error)
        if failure == .connection {
            return LoaderError.truncated.with(message: "the body ended early: \(failure.message)", underlying: error)
        }
        return failure
    }

}
