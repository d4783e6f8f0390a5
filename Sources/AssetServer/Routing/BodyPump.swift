import AssetStorage
import HummingbirdCore
import NIOCore

/// Writes response body pieces with a deadline each: a client that does not read a piece within
/// the write timeout has its connection closed, so that it cannot hold the server's work forever.
struct BodyPump: Sendable {
    let channel: any Channel
    let timeout: TimeAmount

    /// Writes one piece, closing the connection if the client has not taken it in time.
    func write(_ buffer: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        let channel = self.channel
        let watchdog = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { watchdog.cancel() }
        try await writer.write(buffer)
    }

    /// Writes `range` of a data file in pieces of `pieceSize`, read on `runIO`'s threads.
    func write(
        file: DiskCache.DataFile, range: Range<Int64>, to writer: inout any ResponseBodyWriter,
        runIO: @Sendable (@escaping @Sendable () throws -> ByteBuffer) async throws -> ByteBuffer
    ) async throws {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(Int64(Self.pieceSize), range.upperBound - offset))
            let at = offset
            let piece = try await runIO {
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { try file.read(at: at, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
                guard read == count else { throw StorageError(.corrupt, "a cache data file ended early") }
                return buffer
            }
            try await write(piece, to: &writer)
            offset += Int64(count)
        }
    }

    /// The bytes read and written at once from a data file.
    static let pieceSize = 512 << 10
}
