import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat

/// `POST /v1/prefetch` (a list: the prefetch list format as text, or a JSON array of URLs, of
/// `"URL\tkind"` lines or of `{"url", "kind"}` objects) starts a job and answers 202 with its id;
/// `GET /v1/prefetch/{id}` answers its progress, and once it has ended the report of
/// `assetpipe prefetch --report` (with `id` and `state`); `DELETE /v1/prefetch/{id}` cancels it
/// (or forgets an ended one).
///
/// Query options of the POST: `validate=1`, `videoPrefix=BYTES` (a video's first bytes into the
/// chunk store instead of the whole video into the disk cache), `concurrency=N` and `perHost=N` (at
/// most the server's own settings).
struct PrefetchEndpoint: Sendable {
    let context: ServerContext

    func create(_ incoming: IncomingRequest) async throws -> Reply {
        let limit = context.configuration.maxBodyBytes
        let body: ByteBuffer
        do {
            body = try await Deadline.run(within: context.configuration.requestTimeout) {
                try await incoming.request.body.collect(upTo: limit)
            }
        } catch is NIOTooManyBytesError {
            throw AssetServerError.bodyTooLarge(limit)
        }
        let lines = try Self.lines(of: Array(body.readableBytesView), contentType: incoming.headers[.contentType])
        let items = lines.filter { line in
            let trimmed = line.trimmingSpaces
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }.count
        guard items > 0 else { throw AssetServerError.badRequest("the list names no URL") }
        guard items <= context.configuration.maxPrefetchItems else {
            throw AssetServerError.badRequest("the list has \(items) items, at most \(context.configuration.maxPrefetchItems) are allowed")
        }
        var prefetch = context.configuration.prefetch
        if incoming.parameter("validate") != nil { prefetch.validate = incoming.flag("validate") }
        if let concurrency = try incoming.positiveInt("concurrency") { prefetch.concurrency = min(concurrency, prefetch.concurrency) }
        if let perHost = try incoming.positiveInt("perHost") { prefetch.perHost = min(perHost, prefetch.perHost) }
        if let prefix = try incoming.positiveInt("videoPrefix") { prefetch.videoPrefix = Int64(prefix) }
        let job = try context.jobs.start(lines: lines, prefetch: prefetch)
        var reply = Reply.json(.object([
            ("id", .string(job.id)), ("state", .string(job.phase.rawValue)), ("items", .number(Double(items))),
            ("location", .string("/v1/prefetch/\(job.id)")),
        ]), status: .accepted)
        reply.fields[.location] = "/v1/prefetch/\(job.id)"
        return reply
    }

    func status(id: String, incoming: IncomingRequest) throws -> Reply {
        guard let job = context.jobs.job(id: id) else { throw AssetServerError.notFoundJob(id) }
        guard !job.isRunning else { return Self.progress(job) }
        let descriptor = open(job.reportPath, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw AssetServerError.internalError("the report of job \(id) is gone")
        }
        let report = ReportFile(descriptor: descriptor)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        let size = Int64(info.st_size)
        let pump = incoming.pump
        return Reply(status: .ok, fields: fields, length: size, pump: pump) { writer in
            try await pump.sendFile(0..<size, descriptor: { try report.duplicate() }, to: &writer)
        }
    }

    func cancel(id: String) throws -> Reply {
        guard let job = context.jobs.cancel(id: id) else { throw AssetServerError.notFoundJob(id) }
        return Self.progress(job, state: job.isRunning ? "cancelling" : "removed")
    }

    /// `{"id", "state", "items", "summary"}` of a job in progress.
    static func progress(_ job: PrefetchJob, state: String? = nil) -> Reply {
        let summary = PrefetchReportWriter.object(for: job.prefetcher.progress)
        let summaryJSON = (try? JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])).flatMap {
            CompactJSON.parse(Array($0))
        } ?? .null
        return .json(.object([
            ("id", .string(job.id)), ("state", .string(state ?? job.phase.rawValue)),
            ("items", .number(Double(job.items))), ("summary", summaryJSON),
        ]))
    }

    /// The lines of a list body: text split on line breaks, or the members of a JSON array.
    static func lines(of body: [UInt8], contentType: String?) throws -> [String] {
        let first = body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        let isJSON = contentType?.lowercased().contains("json") == true || first == UInt8(ascii: "[")
        guard isJSON else {
            return String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        guard case .array(let members)? = CompactJSON.parse(body) else {
            throw AssetServerError.badRequest("the body is not a JSON array")
        }
        return try members.map { member in
            if let line = member.stringValue { return line.replacingOccurrences(of: "\n", with: " ") }
            if let url = member["url"]?.stringValue {
                let kind = member["kind"]?.stringValue
                return (kind.map { "\(url)\t\($0)" } ?? url).replacingOccurrences(of: "\n", with: " ")
            }
            throw AssetServerError.badRequest("each item must be a URL string or an object with a \"url\"")
        }
    }
}

/// A finished job's report file, open until the reply that sends it is gone.
final class ReportFile: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    func duplicate() throws -> Int32 {
        let copy = dup(descriptor)
        guard copy >= 0 else { throw AssetServerError.internalError("cannot open the report again") }
        return copy
    }
}

#if canImport(Glibc)
import Glibc
#endif
