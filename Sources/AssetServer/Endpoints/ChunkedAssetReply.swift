import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOFoundationCompat

/// The answer for a video or a large asset, read through ``VideoUtil`` and its chunk store: only the
/// chunks the client's range covers are fetched (missing ones) or read (present ones), and the
/// body streams one chunk at a time.
struct ChunkedAssetReply: Sendable {
    let context: ServerContext
    let url: String

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        let conditions = incoming.conditions
        let video = context.video
        // a stored record answers conditional requests without reading any chunk
        if !conditions.isEmpty, let record = try await video.cachedRecord(url: url), record.info.totalLength != nil {
            let outcome = conditions.evaluate(eTag: record.info.eTag, lastModified: record.info.lastModified, now: context.now)
            if outcome != .proceed {
                var fields = headerFields(record.info)
                fields[.xCache] = "chunks"
                return .empty(outcome == .notModified ? .notModified : .preconditionFailed,
                              fields: Representation.notModifiedFields(fields))
            }
        }
        var wanted = incoming.range
        let reader = try await open(wanted)
        guard let info = reader.stream.resource, let total = reader.stream.statistics.totalLength else {
            throw AssetServerError.internalError("the chunk store read gave no length")
        }
        var opened = reader
        if wanted != nil, !conditions.rangeApplies(eTag: info.eTag, lastModified: info.lastModified) {
            // If-Range names another version: the whole representation instead
            wanted = nil
            opened = try await open(nil)
        }
        let fromCache = opened.stream.statistics.bytesFromCache > 0
        context.metrics.recordLookup(layer: .chunks, kind: .video, hit: fromCache)
        var fields = headerFields(info)
        fields[.acceptRanges] = "bytes"
        fields[.xCache] = fromCache ? "chunks" : "chunks-miss"
        let served = opened.stream.statistics.range ?? 0..<total
        let status: HTTPResponse.Status
        if wanted != nil {
            status = .partialContent
            fields[.contentRange] = ClientRange.contentRange(served, length: total)
        } else {
            status = .ok
        }
        if incoming.headOnly {
            var reply = Reply.empty(status, fields: fields)
            reply.length = Int64(served.count)
            reply.cacheStatus = "chunks"
            return reply
        }
        let pump = incoming.pump
        let box = opened
        var reply = Reply(status: status, fields: fields, length: Int64(served.count)) { writer in
            if let first = box.first { try await pump.write(ByteBuffer(data: first), to: &writer) }
            while let piece = try await box.next() { try await pump.write(ByteBuffer(data: piece), to: &writer) }
        }
        reply.cacheStatus = "chunks"
        return reply
    }

    /// Starts the read of `range` (all when nil) and takes its first piece, which settles the
    /// length and the version.
    private func open(_ range: ClientRange?) async throws -> ChunkReader {
        let byteRange: VideoByteRange
        switch range {
        case .none: byteRange = .from(0)
        case .from(let first, let last?): byteRange = .bounded(first..<(last + 1))
        case .from(let first, nil): byteRange = .from(first)
        case .suffix(let count): byteRange = .suffix(count)
        }
        let reader = ChunkReader(stream: context.video.stream(url: url, range: byteRange))
        reader.first = try await reader.next()
        return reader
    }

    /// The fields of the resource as the origin described it.
    private func headerFields(_ info: ChunkRecord.ResourceInfo) -> HTTPFields {
        var fields = HTTPFields()
        if let http = info.http {
            fields = PassedFields.asset(HeaderFields(http.headers.map { ($0.name, $0.value) }))
            let stored = StoredResponse(http)
            fields[.age] = String(Int(min(context.policy.currentAge(of: stored, now: context.now), Double(CacheControl.maximumDeltaSeconds))))
        }
        if let contentType = info.contentType { fields[.contentType] = contentType }
        if let eTag = info.eTag { fields[.eTag] = eTag }
        if let lastModified = info.lastModified { fields[.lastModified] = lastModified }
        return fields
    }
}

/// One range read's iterator and the piece taken ahead, handed from the endpoint to the body
/// writer. Only one task uses it at a time (first the endpoint, then the writer), which is what
/// makes the unchecked sendability sound.
final class ChunkReader: @unchecked Sendable {
    let stream: VideoByteStream
    private var iterator: VideoByteStream.Iterator
    var first: Data?

    init(stream: VideoByteStream) {
        self.stream = stream
        self.iterator = stream.makeAsyncIterator()
    }

    func next() async throws -> Data? { try await iterator.next() }
}
