import AssetStorage
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Gives HummingbirdCore's answer to a request that does not parse as HTTP/1.1 (a bare `400` with
/// `Content-Length: 0` and `Connection: close`, written before the connection closes) the JSON
/// error body every other refusal of the server has: `{"error": {"code": "bad_request", ...}}`.
///
/// It recognizes that answer by its exact head: the responder's own 400s always carry a JSON body.
final class ParseErrorBody: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let body: ByteBuffer = {
        var bytes = AssetServerError.badRequest(
            "the request is not valid HTTP/1.1: a malformed request line or header field, bytes HTTP does not allow in them, or header fields larger than the server accepts"
        ).json.bytes
        bytes.append(0x0A)
        return ByteBuffer(bytes: bytes)
    }()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), head.status == .badRequest,
            head.headerFields[.contentLength] == "0", head.headerFields[.connection] == "close", head.headerFields[.contentType] == nil
        else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = String(Self.body.readableBytes)
        head.headerFields[.cacheControl] = "no-store"
        head.headerFields[.server] = AssetPipelineVersion.productToken
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(Self.body)), promise: promise)
    }
}
