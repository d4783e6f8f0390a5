import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The server's HTTP/1 child channel: HummingbirdCore's `HTTP1Channel` pipeline (NIO's HTTP/1 codec,
/// the HTTPTypes codec, HummingbirdCore's connection state handler for idle timeouts and graceful
/// shutdown) with two handlers of ours: a ``FileRegionBridge`` below the HTTPTypes codec, so that
/// files go out with `sendfile`, and a ``HotPathHandler`` after the state handler, so that a fresh
/// in-memory answer is written from the event loop without a hop to Swift's cooperative pool; every
/// other request goes on to the responder as it does in `HTTP1Channel`; and a ``ParseErrorBody``, so
/// that a request that does not parse gets a JSON error like any other refusal.
struct AssetHTTPChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let hotPath: HotPath
    let idleTimeout: TimeAmount?
    let maxHeaderBytes: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = maxHeaderBytes
            limits.maxHeaderListSize = maxHeaderBytes
            limits.maxHeaderFieldCount = 256
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(FileRegionBridge())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout.map { .nanoseconds($0.nanoseconds) }, logger: logger))
            try pipeline.addHandler(HotPathHandler(hotPath: hotPath))
            try pipeline.addHandler(ParseErrorBody())
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
