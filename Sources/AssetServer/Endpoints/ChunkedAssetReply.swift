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
        if !conditions.isEmpty, let record = try await video.cachedRecord(address: url), record.info.totalLength != nil {
            let outcome = conditions.evaluate(eTag: record.info.eTag, lastModified: record.info.lastModified, now: context.now)
            if outcome != .proceed {
                var fields = headerFields(record.info)
                fields[.xCache] = "chunks"
                return .empty(outcome == .notModified ? .notModified : .preconditionFailed,
                              fields: Representation.notModifiedFields(fields))
            }
        }
        var wanted = incoming.range
        // every chunk stored and fresh: straight from the chunk files, with sendfile
        if let stored = try await storedReply(wanted, incoming: incoming, conditions: conditions) { return stored }
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
        let served = opened.stream.statistics.range ?? 0..<total
        var (status, fields) = head(info, served: served, total: total, ranged: wanted != nil)
        fields[.xCache] = fromCache ? "chunks" : "chunks-miss"
        if incoming.headOnly {
            var reply = Reply.empty(status, fields: fields)
            reply.length = Int64(served.count)
            reply.cacheStatus = "chunks"
            return reply
        }
        let pump = incoming.pump
        let box = opened
        let metrics = context.metrics
        var reply = Reply(status: status, fields: fields, length: Int64(served.count), pump: pump) { writer in
            if let first = box.first { try await pump.write(first, to: &writer) }
            while let piece = try await box.next() { try await pump.write(piece, to: &writer) }
            metrics.recordOriginBytes(box.stream.statistics.bytesFromOrigin)
        }
        reply.cacheStatus = "chunks"
        return reply
    }

    /// The reply from stored chunk files when the record is fresh and every chunk of the wanted
    /// range is stored (see ``VideoUtil/storedRange(for:range:)``); nil otherwise.
    private func storedReply(_ wanted: ClientRange?, incoming: IncomingRequest, conditions: ClientConditions) async throws -> Reply? {
        var wanted = wanted
        guard var stored = try await context.video.storedRange(address: url, range: Self.byteRange(wanted)) else { return nil }
        if wanted != nil, !conditions.rangeApplies(eTag: stored.info.eTag, lastModified: stored.info.lastModified) {
            wanted = nil
            guard let whole = try await context.video.storedRange(address: url, range: .from(0)) else { return nil }
            stored = whole
        }
        context.metrics.recordLookup(layer: .chunks, kind: .video, hit: true)
        var (status, fields) = head(stored.info, served: stored.range, total: stored.totalLength, ranged: wanted != nil)
        fields[.xCache] = "chunks"
        var reply: Reply
        if incoming.headOnly {
            reply = Reply.empty(status, fields: fields)
            reply.length = Int64(stored.range.count)
        } else {
            let pump = incoming.pump
            let pieces = stored.pieces
            reply = Reply(status: status, fields: fields, length: Int64(stored.range.count), pump: pump) { writer in
                for piece in pieces {
                    try await pump.sendFile(
                        Int64(piece.bytes.lowerBound)..<Int64(piece.bytes.upperBound), descriptor: { try piece.file.duplicateDescriptor() },
                        to: &writer)
                }
            }
        }
        reply.cacheStatus = "chunks"
        return reply
    }

    /// The status and fields of a reply of `served` bytes out of `total`.
    private func head(_ info: ChunkRecord.ResourceInfo, served: Range<Int64>, total: Int64, ranged: Bool) -> (HTTPResponse.Status, HTTPFields) {
        var fields = headerFields(info)
        fields[.acceptRanges] = "bytes"
        guard ranged else { return (.ok, fields) }
        fields[.contentRange] = ClientRange.contentRange(served, length: total)
        return (.partialContent, fields)
    }

    /// The chunk store's range of a client's range (all when nil).
    static func byteRange(_ range: ClientRange?) -> VideoByteRange {
        switch range {
        case .none: return .from(0)
        case .from(let first, let last?): return .bounded(first..<(last + 1))
        case .from(let first, nil): return .from(first)
        case .suffix(let count): return .suffix(count)
        }
    }

    /// Starts the read of `range` (all when nil) and takes its first piece, which settles the
    /// length and the version.
    private func open(_ range: ClientRange?) async throws -> ChunkReader {
        let reader = ChunkReader(stream: context.video.stream(address: url, range: Self.byteRange(range)))
        reader.first = try await reader.next()
        return reader
    }

    /// The fields of the resource as the origin described it.
    private func headerFields(_ info: ChunkRecord.ResourceInfo) -> HTTPFields {
        var fields = Self.resourceFields(info)
        if let http = info.http {
            let stored = StoredResponse(http)
            fields[.age] = String(Int(min(context.policy.currentAge(of: stored, now: context.now), Double(CacheControl.maximumDeltaSeconds))))
        }
        return fields
    }

    /// The fields of the resource as the origin described it, but `Age`.
    static func resourceFields(_ info: ChunkRecord.ResourceInfo) -> HTTPFields {
        var fields = HTTPFields()
        if let http = info.http {
            fields = PassedFields.asset(HeaderFields(http.headers.map { ($0.name, $0.value) }))
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
