import AssetStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif
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

    /// Writes `data` in pieces of at most ``streamPieceSize`` bytes, each within the write timeout.
    /// The last piece is handed over once the ones before it have drained to the socket, so the
    /// caller's next read (a chunk fetch) waits for the client to take all but one piece.
    func write(_ data: Data, to writer: inout any ResponseBodyWriter) async throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(data.endIndex, offset + Self.streamPieceSize)
            try await write(ByteBuffer(bytes: data[offset..<end]), to: &writer)
            offset = end
        }
    }

    /// Sends `range` of an open file with `sendfile`, through the connection's ``FileRegionBridge``,
    /// in regions of ``filePieceSize`` bytes: `descriptor` gives a new descriptor of the file for each
    /// (the bridge closes it). Each region must be taken by the client within the write timeout: the
    /// next write waits for the previous region to drain, under the watchdog.
    func sendFile(
        _ range: Range<Int64>, descriptor: () throws -> Int32, to writer: inout any ResponseBodyWriter
    ) async throws {
        guard !range.isEmpty else { return }
        let bridge = try await channel.pipeline.handler(type: FileRegionBridge.self).get()
        let channel = self.channel
        var offset = range.lowerBound
        while offset < range.upperBound {
            let end = min(range.upperBound, offset + Int64(Self.filePieceSize))
            let token = bridge.register(descriptor: try descriptor(), range: offset..<end)
            let watchdog = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
            defer { watchdog.cancel() }
            try await writer.write(token)
            offset = end
        }
    }

    /// Ends the body, within the write timeout (the end waits for what is still being sent).
    func finish(_ writer: inout any ResponseBodyWriter) async throws {
        let channel = self.channel
        let watchdog = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { watchdog.cancel() }
        try await writer.finish(nil)
    }

    /// The bytes of one file region.
    static let filePieceSize = 4 << 20

    /// The largest piece of a streamed body (a chunk the store hands over) written at once.
    static let streamPieceSize = 64 << 10

    /// The bytes read and written at once from a data file.
    static let pieceSize = 512 << 10
}
