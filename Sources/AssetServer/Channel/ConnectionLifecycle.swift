import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// A connection's idle timeout and graceful shutdown, in place of HummingbirdCore's
/// `HTTPConnectionStateHandler` and with its rules, but also aware of ``FastPathHandler``, whose
/// answers never reach the HTTP parts this handler sees:
///
/// - it counts the requests the decoder read whose response has not ended (``outstanding``); the
///   fast path answers only while there are none, so that responses leave in request order;
/// - the idle timeout closes a connection that has read nothing for ``idleTimeout``, unless a
///   response is still being written for a request read whole; the fast path reports its reads
///   (``touch()``) and the partial head it holds (``holdingHead``);
/// - on graceful shutdown (`ChannelShouldQuiesceEvent`) an idle connection closes at once, a busy
///   one once its last response has been flushed.
final class ConnectionLifecycle: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let idleTimeout: TimeAmount?
    /// Requests read by the decoder whose response has not ended.
    private(set) var outstanding = 0
    /// Whether graceful shutdown asked the connection to close once its responses have ended.
    private(set) var closing = false
    /// Whether the fast path holds the start of a request head.
    var holdingHead = false
    private var readingRequest = false
    private var lastActive = NIODeadline.now()
    private var active = false
    private var idleTask: Scheduled<Void>?

    init(idleTimeout: TimeAmount?) {
        self.idleTimeout = idleTimeout
    }

    /// Records that bytes of a request arrived.
    func touch() {
        if idleTimeout != nil { lastActive = .now() }
    }

    /// Whether the fast path may answer the next request now.
    var isQuiet: Bool { outstanding == 0 && !closing }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { becameActive(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTask?.cancel()
        idleTask = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        idleTask?.cancel()
        idleTask = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        touch()
        switch unwrapInboundIn(data) {
        case .head:
            outstanding += 1
            readingRequest = true
        case .body:
            break
        case .end:
            readingRequest = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        outstanding = max(0, outstanding - 1)
        guard outstanding == 0 else {
            context.write(data, promise: promise)
            return
        }
        if closing {
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
            return
        }
        touch()
        scheduleIdle(context, in: idleTimeout)
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if outstanding == 0 {
            context.close(promise: nil)
        } else {
            closing = true
        }
    }

    private func becameActive(_ context: ChannelHandlerContext) {
        guard !active else { return }
        active = true
        lastActive = .now()
        scheduleIdle(context, in: idleTimeout)
    }

    private func scheduleIdle(_ context: ChannelHandlerContext, in delay: TimeAmount?) {
        guard let delay, idleTask == nil, active else { return }
        idleTask = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [self] in
            idleTask = nil
            idleTimerFired(context)
        }
    }

    private func idleTimerFired(_ context: ChannelHandlerContext) {
        guard let idleTimeout, active else { return }
        // a request read whole is being answered: its response's end schedules the timer again
        if !readingRequest && !holdingHead && outstanding > 0 { return }
        let deadline = lastActive + idleTimeout
        let now = NIODeadline.now()
        if now >= deadline {
            context.close(promise: nil)
        } else {
            scheduleIdle(context, in: deadline - now)
        }
    }
}
