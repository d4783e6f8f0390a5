import AssetLoading
import AssetStorage
import AsyncHTTPClient
import Foundation
import NIOCore

extension VideoReadSession {
    /// One response head, with the times the freshness rules need.
    struct Exchange {
        var response: HTTPClientResponse
        var headers: HeaderFields
        var requestTime: Date
        var responseTime: Date
        /// When the whole exchange, body included, must be over (the loader's total timeout).
        var deadline: NIODeadline
        var status: Int { Int(response.status.code) }
    }

    /// Claims the run of missing chunks from `index` (up to the range's end, the next present or
    /// in-flight chunk, or ``VideoUtil/Configuration/maxChunksPerRequest`` chunks, or for a streamed
    /// read ``VideoUtil/Configuration/readAheadChunks`` past `index`) and starts one request
    /// for all of them. Does nothing when another read claimed `index` first.
    func startFetch(at index: Int) async throws {
        let (store, key) = (util.store, key)
        var stored: ChunkRecord?
        if let version, version.stored {
            stored = try await util.runIO { try store.record(forKey: key) }
            if stored?.generation != version.generation { stored = nil }
        }
        let span = windowed ? max(0, util.configuration.readAheadChunks) + 1 : util.configuration.maxChunksPerRequest
        var lastWanted = index + max(1, span) - 1
        if let end { lastWanted = min(lastWanted, Int((end - 1) / Int64(chunkSize))) }
        var runEnd = index + 1
        while runEnd <= lastWanted, stored?.contains(chunk: runEnd) != true, util.inFlight.signal(key: key, index: runEnd) == nil {
            runEnd += 1
        }
        var claims = util.inFlight.claim(key: key, indices: index..<runEnd)
        guard !claims.isEmpty else { return }
        if let version, version.stored {
            // chunks another read stored since the record was looked at are not fetched again
            let now = try await util.runIO { try store.record(forKey: key) }
            if now?.generation == version.generation, let first = claims.keys.sorted().first(where: { now?.contains(chunk: $0) == true }) {
                let released = claims.filter { $0.key >= first }
                claims = claims.filter { $0.key < first }
                abandon(released, VideoError(.network, "chunk stored meanwhile"))
                if claims.isEmpty { return }
            }
        }
        do {
            let opened = try await openExchange(from: Int64(index) * Int64(chunkSize), to: Int64(index + claims.count) * Int64(chunkSize),
                                                claims: claims, runEnd: index + claims.count)
            if let opened { fetch = opened.fetch } else { abandon(claims, VideoError(.network, "no body for \(key)")) }
        } catch {
            abandon(claims, error)
            throw error
        }
    }

    /// Learns the length of a resource first read by its suffix: asks for its first byte.
    func probeLength() async throws {
        guard let opened = try await openExchange(from: 0, to: 1, claims: [:], runEnd: .max) else { return }
        if opened.partial {
            opened.fetch.close()
        } else {
            fetch = opened.fetch  // an origin without ranges: the body is read from the start
        }
        if end == nil, let total = version?.info.totalLength { try applyLength(total) }
        if end == nil, let fetch {
            // unknown length (chunked transfer): read it all, storing the chunks, to learn it
            while case .chunk = try await fetch.deliver(chunk: fetch.currentChunk) {}
            try adopt(fetch.version)
            self.fetch = nil
        }
    }

    /// Sends one GET for `start..<end` (clipped to the known length; without `Range` to an origin
    /// that ignores it), settles the version from the answer and returns the body's fetch; nil
    /// for a 416 within the known length.
    func openExchange(from start: Int64, to end: Int64, claims: [Int: ChunkSignal], runEnd: Int) async throws -> (fetch: ChunkFetch, partial: Bool)? {
        var request = makeRequest()
        let rangesSupported = version?.info.rangesSupported ?? true
        var sentIfRange = false
        if rangesSupported {
            let last = min(end, version?.info.totalLength ?? .max) - 1
            request.headers.add(name: "Range", value: "bytes=\(start)-\(last)")
            if let value = version?.ifRange {
                request.headers.add(name: "If-Range", value: value)
                sentIfRange = true
            }
        }
        let exchange = try await send(request)
        switch exchange.status {
        case 206:
            // the bytes asked for, clipped to the end: a range that starts elsewhere or stops short
            // (which would be asked for again and again) is refused
            let wanted = min(end, version?.info.totalLength ?? .max)
            guard let contentRange = exchange.headers["Content-Range"].flatMap(ContentRange.init), let range = contentRange.range,
                  range.lowerBound == start, range.upperBound >= min(wanted, contentRange.totalLength ?? .max)
            else {
                await drain(exchange.response)
                throw VideoError(.invalidResponse, "\(url) answered bytes \(exchange.headers["Content-Range"] ?? "(none)") to bytes=\(start)-\(end - 1)")
            }
            let info = responseInfo(exchange, total: contentRange.totalLength, rangesSupported: true)
            // honouring If-Range confirms the stored version, unless the answer names another one
            let confirmed = sentIfRange && !(version.map { VideoVersion.contradicts($0.info, info) } ?? false)
            try await settle(info, exchange, confirmed: confirmed)
            let fetch = ChunkFetch(util: util, key: key, version: version!, body: exchange.response.body, start: start,
                                   bodyEnd: range.upperBound, claims: claims, runEnd: runEnd, statistics: statistics,
                                   deadline: exchange.deadline)
            return (fetch, true)
        case 200:
            var info = responseInfo(exchange, total: Self.contentLength(exchange.headers), rangesSupported: false)
            if sentIfRange, let version, !VideoVersion.isSame(version.info, info) {
                // a new version: whether it does ranges, only its Accept-Ranges tells
                info.rangesSupported = exchange.headers.listMembers(for: "Accept-Ranges").contains { $0.lowercased() == "bytes" }
            }
            try await settle(info, exchange, confirmed: false)
            let fetch = ChunkFetch(util: util, key: key, version: version!, body: exchange.response.body, start: 0,
                                   bodyEnd: info.totalLength, claims: claims, runEnd: runEnd, statistics: statistics,
                                   deadline: exchange.deadline)
            return (fetch, false)
        case 416:
            guard let total = exchange.headers["Content-Range"].flatMap(ContentRange.init)?.totalLength else {
                throw VideoError(.http, "\(url) answered 416 without the length", status: 416)
            }
            await drain(exchange.response)
            if version?.info.totalLength != total {
                try await settle(responseInfo(exchange, total: total, rangesSupported: true), exchange, confirmed: false)
            }
            try applyLength(total)
            return nil
        default:
            await drain(exchange.response)
            throw VideoError(.http, "\(url) answered \(exchange.status)", status: exchange.status)
        }
    }

    /// Confirms a stale record before serving it: a conditional request for one byte. A 304
    /// refreshes the record; an answer with another validator drops its chunks.
    func validate() async throws {
        guard let version else { return }
        var request = makeRequest()
        request.headers.add(name: "Range", value: "bytes=0-0")
        if let eTag = version.info.eTag { request.headers.add(name: "If-None-Match", value: eTag) }
        if let lastModified = version.info.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        let exchange = try await send(request)
        needsValidation = false
        switch exchange.status {
        case 304:
            await drain(exchange.response)
            let (store, key) = (util.store, key)
            let record = try await util.runIO { try store.record(forKey: key) }
            guard let record, record.generation == version.generation,
                  let refreshed = record.storedResponse?.revalidated(
                      withNotModified: exchange.headers, requestTime: exchange.requestTime, responseTime: exchange.responseTime)
            else {
                _ = try await util.runIO { try store.removeResource(forKey: key) }
                self.version = nil
                return
            }
            let http = Self.httpInfo(refreshed.headers, requestTime: refreshed.requestTime, responseTime: refreshed.responseTime)
            if let updated = try await util.runIO({ try store.updateInfo(forKey: key, generation: version.generation) { $0.http = http } }) {
                try adopt(VideoVersion(record: updated))
            }
        case 206, 200:
            let total = exchange.status == 206
                ? exchange.headers["Content-Range"].flatMap(ContentRange.init)?.totalLength
                : Self.contentLength(exchange.headers)
            let info = responseInfo(exchange, total: total, rangesSupported: exchange.status == 206 || version.info.rangesSupported)
            if exchange.status == 206 { await drain(exchange.response) }
            try await settle(info, exchange, confirmed: false)
        default:
            await drain(exchange.response)
            throw VideoError(.http, "\(url) answered \(exchange.status) to a revalidation", status: exchange.status)
        }
    }

    /// Makes the version a response describes the one this read serves: the stored record is
    /// kept when the response shows the same version (`confirmed`: the origin said so by
    /// honouring `If-Range`), else replaced, every old chunk dropped. A response HTTP caching
    /// forbids storing is served without being stored.
    func settle(_ info: ChunkRecord.ResourceInfo, _ exchange: Exchange, confirmed: Bool) async throws {
        needsValidation = false
        let (store, key) = (util.store, key)
        let storable = util.policy.isStorable(status: 200, method: "GET", responseHeaders: exchange.headers, requestHeaders: HeaderFields())
        guard storable else {
            if version?.stored == true { _ = try await util.runIO { try store.removeResource(forKey: key) } }
            if var same = version, !same.stored, VideoVersion.isSame(same.info, info) {
                same.info = info
                try adopt(same)
            } else {
                try adopt(VideoVersion(unstored: info))
            }
            return
        }
        let current = version?.generation
        let record = try await util.runIO {
            try store.settleVersion(forKey: key) { existing in
                guard let existing else { return .replace(info) }
                if let a = existing.info.totalLength, let b = info.totalLength, a != b { return .replace(info) }
                guard (confirmed && existing.generation == current) || VideoVersion.isSame(existing.info, info) else {
                    return .replace(info)
                }
                var merged = info
                merged.totalLength = info.totalLength ?? existing.info.totalLength
                merged.eTag = info.eTag ?? existing.info.eTag
                merged.lastModified = info.lastModified ?? existing.info.lastModified
                return .keep(merged)
            }
        }
        try adopt(VideoVersion(record: record))
    }

    // MARK: helpers

    func makeRequest() -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        for (name, value) in util.configuration.requestHeaders { request.headers.add(name: name, value: value) }
        return request
    }

    func send(_ request: HTTPClientRequest) async throws -> Exchange {
        let requestTime = util.clock.now
        statistics.update { $0.originRequests += 1 }
        let (seconds, attoseconds) = util.manager.configuration.loader.totalTimeout.components
        let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        do {
            let response = try await util.manager.loader.send(request, deadline: deadline, kind: .video).response
            statistics.update { $0.status = Int(response.status.code) }
            return Exchange(
                response: response, headers: HeaderFields(response.headers), requestTime: requestTime, responseTime: util.clock.now,
                deadline: deadline)
        } catch let error as CancellationError {
            throw error
        } catch let error as LoaderError where error == .cancelled {
            throw CancellationError()
        } catch {
            throw VideoError.network(url, error)
        }
    }

    func responseInfo(_ exchange: Exchange, total: Int64?, rangesSupported: Bool) -> ChunkRecord.ResourceInfo {
        ChunkRecord.ResourceInfo(
            totalLength: total, eTag: exchange.headers["ETag"], lastModified: exchange.headers["Last-Modified"],
            contentType: exchange.headers["Content-Type"], originalUrlString: url, rangesSupported: rangesSupported,
            http: Self.httpInfo(exchange.headers, requestTime: exchange.requestTime, responseTime: exchange.responseTime))
    }

    /// The fields freshness needs, as a 200 of the whole resource would have them.
    static func httpInfo(_ headers: HeaderFields, requestTime: Date, responseTime: Date) -> CacheMetadata.HTTPInfo {
        var kept = FreshnessPolicy.headersToStore(headers)
        kept.removeAll(named: "Content-Range")
        kept.removeAll(named: "Content-Length")
        return CacheMetadata.HTTPInfo(
            status: 200, headers: kept.fields.map { ($0.name, $0.value) }, requestTime: requestTime, responseTime: responseTime)
    }

    /// The `Content-Length`, unless the body is chunked.
    static func contentLength(_ headers: HeaderFields) -> Int64? {
        if headers.listMembers(for: "Transfer-Encoding").contains(where: { $0.lowercased() == "chunked" }) { return nil }
        return headers["Content-Length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Reads and drops a small body (so the connection can be reused), counting its bytes.
    func drain(_ response: HTTPClientResponse) async {
        var read = 0
        do {
            for try await buffer in response.body {
                read += buffer.readableBytes
                if read > 64 * 1024 { break }
            }
        } catch {}
        statistics.update { [read] in $0.bytesFromOrigin += Int64(read) }
    }

    func abandon(_ claims: [Int: ChunkSignal], _ error: any Error) {
        for (index, signal) in claims { util.inFlight.finish(key: key, index: index, signal: signal, .failure(error)) }
    }
}
