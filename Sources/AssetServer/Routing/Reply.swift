import AssetStorage
import HTTPTypes
import HummingbirdCore
import NIOCore

/// A response the server writes: status, header fields and body, with the facts the metrics need.
struct Reply: Sendable {
    var status: HTTPResponse.Status
    var fields: HTTPFields
    var body: ResponseBody
    /// The body's length (also sent as `Content-Length`).
    var length: Int64
    /// The `X-Assetpipe-Cache` value, when the answer is an asset's.
    var cacheStatus: String?

    /// A reply with a body in memory.
    init(status: HTTPResponse.Status, fields: HTTPFields = HTTPFields(), buffer: ByteBuffer) {
        self.status = status
        self.fields = fields
        self.body = ResponseBody(byteBuffer: buffer)
        self.length = Int64(buffer.readableBytes)
    }

    /// A reply whose body `write` produces (exactly `length` bytes) through `pump`, which also ends
    /// it within the write timeout.
    init(status: HTTPResponse.Status, fields: HTTPFields, length: Int64, pump: BodyPump,
         write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) {
        self.status = status
        self.fields = fields
        self.body = ResponseBody(contentLength: Int(clamping: length)) { writer in
            try await write(&writer)
            try await pump.finish(&writer)
        }
        self.length = length
    }

    /// A reply without a body.
    static func empty(_ status: HTTPResponse.Status, fields: HTTPFields = HTTPFields()) -> Reply {
        Reply(status: status, fields: fields, buffer: ByteBuffer())
    }

    /// A JSON reply.
    static func json(_ value: CompactJSON, status: HTTPResponse.Status = .ok) -> Reply {
        var bytes = value.bytes
        bytes.append(0x0A)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Reply(status: status, fields: fields, buffer: ByteBuffer(bytes: bytes))
    }

    /// The JSON error reply of `error`.
    static func error(_ error: AssetServerError) -> Reply {
        var reply = Reply.json(error.json, status: HTTPResponse.Status(code: error.status))
        if error.status == 401 { reply.fields[.wwwAuthenticate] = "Bearer" }
        if let totalLength = error.totalLength { reply.fields[.contentRange] = "bytes */\(totalLength)" }
        if let retryAfter = error.retryAfter { reply.fields[.retryAfter] = String(retryAfter) }
        return reply
    }
}
