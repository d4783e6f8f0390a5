import NIOCore
import NIOHTTP1
import Synchronization

/// Lets the async responder send a file with `sendfile` although HummingbirdCore's response body
/// parts carry byte buffers only: the responder registers the file here and writes a 16-byte token
/// as a body part; this handler, below the HTTPTypes codec, sees the token and writes the file
/// region in its place, then closes the descriptor once the region has gone out (or the connection
/// has).
///
/// The token is a per-process random 8-byte prefix and a random 8-byte key that must have been
/// registered on this very connection, so a body piece that is not a token is never taken for one.
final class FileRegionBridge: ChannelOutboundHandler, RemovableChannelHandler, Sendable {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let tokenSize = 16
    private static let prefix = UInt64.random(in: 1...UInt64.max)

    private struct Pending {
        var descriptor: Int32
        var range: Range<Int64>
    }

    private let pending = Mutex<[UInt64: Pending]>([:])

    /// Registers `range` of the open file `descriptor` (which the bridge now owns and closes) and
    /// returns the token to write as a body part in its place.
    func register(descriptor: Int32, range: Range<Int64>) -> ByteBuffer {
        let key = UInt64.random(in: 1...UInt64.max)
        pending.withLock { $0[key] = Pending(descriptor: descriptor, range: range) }
        var token = ByteBuffer()
        token.writeInteger(Self.prefix)
        token.writeInteger(key)
        return token
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .body(.byteBuffer(let buffer)) = unwrapOutboundIn(data), buffer.readableBytes == Self.tokenSize,
            buffer.getInteger(at: buffer.readerIndex, as: UInt64.self) == Self.prefix,
            let key = buffer.getInteger(at: buffer.readerIndex + 8, as: UInt64.self),
            let file = pending.withLock({ $0.removeValue(forKey: key) })
        {
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: file.descriptor)
            let region = FileRegion(fileHandle: handle, readerIndex: Int(file.range.lowerBound), endIndex: Int(file.range.upperBound))
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in try? handle.close() }
            written.futureResult.cascade(to: promise)
            context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: written)
            return
        }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        let left = pending.withLock { pending -> [Pending] in
            defer { pending.removeAll() }
            return Array(pending.values)
        }
        for file in left { _ = Glibc.close(file.descriptor) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
