import NIOCore
import NIOPosix

/// Sends `request` verbatim over a new TCP connection and returns every byte received until the server
/// closes the connection: what was really on the wire, without an HTTP client's interpretation.
func rawHTTPExchange(port: Int, request: String) async throws -> [UInt8] {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(string: request))
        var received: [UInt8] = []
        for try await buffer in inbound {
            received.append(contentsOf: buffer.readableBytesView)
        }
        return received
    }
}

/// Splits a raw HTTP/1.1 response into its head (as text) and the bytes after the blank line.
func splitRawResponse(_ bytes: [UInt8]) -> (head: String, body: [UInt8])? {
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    guard bytes.count >= separator.count else { return nil }
    for index in 0...(bytes.count - separator.count) where Array(bytes[index..<(index + separator.count)]) == separator {
        return (String(decoding: bytes[..<index], as: UTF8.self), Array(bytes[(index + separator.count)...]))
    }
    return nil
}
