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
        var storagePolicy: StoragePolicy
        if self.policy.isStorable(status: status, method: "GET", responseHeaders: headers, requestHeaders: target.request.headers) {
            storagePolicy = self.configuration.storagePolicy?(target.request, status, headers) ?? .allowed
        } else {
            storagePolicy = .notAllowed
        }
        let body: AssetResponse.Body
        let received: Int64
        var storeFailure: StorageError?
        var bodyPrefix: [UInt8]?
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
            switch try await self.streamToCache(
                response.body, key: key, info: info, limit: limit, expectedSize: contentLength, deadline: deadline)
            {
            case .stored(let metadata, let prefix):
                bodyPrefix = prefix
                if !varying.isEmpty {
                    let cache = self.diskCache
                    let index = VaryIndex.indexInfo(kind: kind, url: target.request.address, fieldNames: varying, time: responseTime)
                    let baseKey = target.cacheKey
                    do {
                        try await self.runIO { _ = try cache.store(Data(), forKey: baseKey, info: index) }
                    } catch let error as StorageError where error.code == .io {
                        self.noteStoreFailure(error, url: target.request.address, kind: kind)
                    }
                }
                body = .cacheEntry(metadata)
                received = metadata.size
            case .unstored(let data, let error):
                // The disk refused the body (full, read-only, gone): the answer is the origin's bytes,
                // held in memory, and the next load tries the disk again.
                self.noteStoreFailure(error, url: target.request.address, kind: kind)
                body = .data(data)
                received = Int64(data.count)
                storagePolicy = .memoryOnly
                storeFailure = error
            }
        } else {
            let data = try await self.collect(response.body, limit: limit, expectedSize: contentLength, deadline: deadline)
            body = .data(data)
            received = Int64(data.count)
        }
        var answer = AssetResponse(
            url: target.request.address, cacheKey: body.cacheKey ?? target.cacheKey, kind: kind, outcome: .downloaded, status: status,
            headers: headers, body: body, storagePolicy: storagePolicy, size: received, bytesReceived: received, attempts: attempt,
            timings: AssetResponse.Timings(start: start, responseHead: responseTime, end: clock.now), route: sent.route)
        answer.storeFailure = storeFailure
        answer.bodyPrefix = bodyPrefix
        return .full(answer)
    }
    /// Where a body that could be stored ended up.
    enum Streamed: Sendable {
        /// Stored, with the body's first ``AssetResponse/bodyPrefixLength`` bytes.
        case stored(CacheMetadata, prefix: [UInt8])
        /// The disk refused it: the whole body in memory, and why.
        case unstored(Data, StorageError)
    }

    /// Streams `body` into a cache writer: the body collects in memory up to ``writeBatchSize`` before
    /// each hand-off to the I/O pool, so a body that fits in one batch is opened, written, committed
    /// and renamed in a single hand-off. Commits only a whole body; any failure of the body discards
    /// the write. A failure of the disk (``StorageError/Code/io``) is not a failure of the load: what
    /// was written is read back and the rest of the body collected in memory (``Streamed/unstored``).
    private func streamToCache(
        _ body: HTTPClientResponse.Body, key: String, info: DiskCache.EntryInfo, limit: Int64, expectedSize: Int64?,
        deadline: NIODeadline
    ) async throws -> Streamed {
        let cache = self.diskCache
        var writer: DiskCache.Writer?
        var memory: Data?
        var failure: StorageError?
        // The chunks as they came (no copy into one buffer): each batch goes out in one `writev`.
        var pending: [ByteBuffer] = []
        var pendingBytes = 0
        var total: Int64 = 0
        var prefix: [UInt8] = []
        do {
            for try await chunk in body {
                total += Int64(chunk.readableBytes)
                try Self.check(total: total, limit: limit, expectedSize: expectedSize, deadline: deadline)
                if prefix.count < AssetResponse.bodyPrefixLength {
                    prefix += chunk.readableBytesView.prefix(AssetResponse.bodyPrefixLength - prefix.count)
                }
                if memory != nil {
                    memory?.append(contentsOf: chunk.readableBytesView)
                    continue
                }
                pending.append(chunk)
                pendingBytes += chunk.readableBytes
                if pendingBytes >= Self.writeBatchSize {
                    let batch = pending
                    pending = []
                    pendingBytes = 0
                    do {
                        writer = try await self.runIO { [writer] in
                            let open = try writer ?? cache.makeWriter(forKey: key, maxBytes: limit)
                            try Self.withPieces(batch[...], []) { try open.append(contentsOf: $0) }
                            return open
                        }
                    } catch let error as StorageError where error.code == .io {
                        var salvaged = try await self.salvage(writer)
                        for piece in batch { salvaged.append(contentsOf: piece.readableBytesView) }
                        (memory, failure, writer) = (salvaged, error, nil)
                    }
                }
            }
        } catch {
            writer?.discard()
            throw Self.bodyFailure(error)
        }
        let rest = pending
        if var memory, let failure {
            for piece in rest { memory.append(contentsOf: piece.readableBytesView) }
            return .unstored(memory, failure)
        }
        do {
            let metadata = try await self.runIO { [writer] in
                let open = try writer ?? cache.makeWriter(forKey: key, maxBytes: limit)
                do {
                    return try Self.withPieces(rest[...], []) { try open.commit(info, expectedSize: expectedSize, finalPieces: $0) }
                } catch let error as StorageError where error.code == .io {
                    // Kept for the read-back below when it was this closure's own writer.
                    if writer == nil { open.discard() }
                    throw error
                } catch let error as StorageError where error.code == .corrupt {
                    throw LoaderError.truncated.with(message: error.message, underlying: error)
                }
            }
            return .stored(metadata, prefix: prefix)
        } catch let error as StorageError where error.code == .io {
            var salvaged = try await self.salvage(writer)
            for piece in rest { salvaged.append(contentsOf: piece.readableBytesView) }
            return .unstored(salvaged, error)
        } catch {
            writer?.discard()
            throw error
        }
    }

    /// Calls `body` with the readable bytes of every buffer, in order (each valid for the call only).
    static func withPieces<T>(
        _ buffers: ArraySlice<ByteBuffer>, _ pieces: [UnsafeRawBufferPointer], _ body: ([UnsafeRawBufferPointer]) throws -> T
    ) throws -> T {
        guard let first = buffers.first else { return try body(pieces) }
        return try first.withUnsafeReadableBytes { try withPieces(buffers.dropFirst(), pieces + [$0], body) }
    }

    /// What a writer the disk refused had written (read back from its open file), then discards it;
    /// empty when there was no writer yet.
    private func salvage(_ writer: DiskCache.Writer?) async throws -> Data {
        guard let writer else { return Data() }
        defer { writer.discard() }
        return try await self.runIO { try writer.writtenBytes() }
    }

    /// Logs and counts a body the disk cache could not keep.
    func noteStoreFailure(_ error: StorageError, url: String, kind: AssetKind) {
        self.metrics.recordStoreFailure(kind: kind, error: error)
        self.logger.warning(
            "the disk cache could not store a body; answering from memory",
            metadata: ["url": "\(url)", "error": "\(error)"])
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
