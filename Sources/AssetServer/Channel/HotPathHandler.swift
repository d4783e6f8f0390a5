import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers on the event loop the requests that ``HotPath`` can answer at once (a fresh body in
/// memory), and passes every other request on to the async responder. It sees the requests that
/// ``FastPathHandler`` passed on: those that came while an earlier one was with the responder, and
/// those not in the plain form.
///
/// Responses leave in request order: a request is answered here only when no earlier request of
/// the connection is still with the responder (a pipelining client's later requests wait their
/// turn there). The parts of a request answered here (its end) are swallowed.
final class HotPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let hotPath: HotPath
    /// Requests passed on whose response has not ended yet.
    private var passedOn = 0
    /// Whether the parts being read belong to a request answered here.
    private var swallowing = false

    init(hotPath: HotPath) {
        self.hotPath = hotPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, let hit = hotPath.answer(head) {
                swallowing = true
                context.write(wrapOutboundOut(.head(hit.response)), promise: nil)
                if let body = hit.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                hotPath.finished(hit)
                return
            }
            swallowing = false
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if !swallowing { context.fireChannelRead(data) }
        case .end:
            if swallowing {
                swallowing = false
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}
