import HTTPTypes
import NIOCore
import NIOHTTP1

/// A response head as HTTP/1.1 bytes, the way NIO's encoder writes it (`HTTP/1.1 200 OK`, then
/// `name: value` lines), without the empty line that ends it: a hot answer is this, then its
/// `Age` line and the empty line (``FastPathHandler``).
enum HTTPHeadBytes {
    static func make(status: Int, fields: HTTPFields) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(64 + fields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 })
        buffer.writeString("HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n")
        for field in fields {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        return buffer
    }
}
