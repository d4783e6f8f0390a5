import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The server's HTTP/1 child channel: HummingbirdCore's `HTTP1Channel` pipeline (NIO's HTTP/1 codec,
/// the HTTPTypes codec) with handlers of ours:
///
/// - a ``FastPathHandler`` first, before the decoder, which answers a plain request for a fresh
///   body in memory from the raw bytes;
/// - a ``FileRegionBridge`` below the HTTPTypes codec, so that files go out with `sendfile`;
/// - a ``ConnectionLifecycle`` in place of HummingbirdCore's connection state handler (idle
///   timeouts and graceful shutdown, aware of the fast path's answers);
/// - a ``HotPathHandler``, which answers a fresh in-memory answer from the event loop among the
///   requests the decoder read (those that came while another was with the responder), without a
///   hop to Swift's cooperative pool; every other request goes on to the responder as it does in
///   `HTTP1Channel`;
/// - a ``ParseErrorBody``, so that a request that does not parse gets a JSON error like any other
///   refusal.
struct AssetHTTPChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let hotPath: HotPath
    let idleTimeout: TimeAmount?
    let maxHeaderBytes: Int
    /// `TCP_NOTSENT_LOWAT` of each connection (see `AssetServer.Configuration.unsentBytesLimit`).
    let unsentBytesLimit: Int?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = maxHeaderBytes
            limits.maxHeaderListSize = maxHeaderBytes
            limits.maxHeaderFieldCount = 256
            if let unsentBytesLimit, let options = channel.syncOptions {
                try options.setOption(ChannelOptions.tcpOption(.init(rawValue: Self.tcpNotSentLowat)), value: unsentBytesLimit)
            }
            let pipeline = channel.pipeline.syncOperations
            let lifecycle = ConnectionLifecycle(idleTimeout: idleTimeout)
            try pipeline.addHandler(FastPathHandler(hotPath: hotPath, lifecycle: lifecycle, maxHeadBytes: maxHeaderBytes))
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(FileRegionBridge())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(lifecycle)
            try pipeline.addHandler(HotPathHandler(hotPath: hotPath))
            try pipeline.addHandler(ParseErrorBody())
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    /// `TCP_NOTSENT_LOWAT` of `<netinet/tcp.h>`, which Glibc's module does not export.
    static let tcpNotSentLowat: CInt = 25

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
