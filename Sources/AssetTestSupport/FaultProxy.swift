import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 proxy of the tests' own in front of a real server (radosgw): each request is
/// read whole, and what happens to it is the test's call: passed on, answered `503 SlowDown` or
/// `400 ExpiredToken`, cut
/// on its way up after some bytes of its body, or passed on and its answer cut after some bytes.
///
/// - **One request per upstream connection**: the request goes up with `Connection: close` (a field
///   no signature covers) and the answer comes back as it came, so a cut is exactly where it is
///   asked for; the client's connection is closed after each answer.
/// - ``stop()`` closes the listener and every connection: to the client the server is gone
///   (connections refused), as when the real one is stopped.
/// - ``forwarded`` counts the requests passed on whole, ``requests`` all of them.
///
/// ```swift
/// let proxy = try await FaultProxy.start(upstreamPort: 7480) { request, index in index == 1 ? .slowDown : .forward }
/// // ... point the client at proxy.baseURL ...
/// await proxy.stop()
/// ```
public final class FaultProxy: Sendable {
    /// What becomes of a request.
    public enum Action: Sendable, Equatable {
        /// Passed on; its answer comes back whole.
        case forward
        /// Answered `503` with S3's `SlowDown` error and `Retry-After: 0`; nothing goes up.
        case slowDown
        /// Answered as AWS answers a request whose session token has expired: `400` with S3's
        /// `ExpiredToken` error, "The provided token has expired.", and the token sent back in
        /// `<Token-0>`; a `HEAD`'s answer has no body. Nothing goes up.
        case expiredToken
        /// The head and the first `bytes` of the body go up, then both connections are reset.
        case cutRequest(afterBodyBytes: Int)
        /// Passed on; the first `bytes` of its answer come back, then the client's connection is reset.
        case cutResponse(afterBytes: Int)
    }

    /// A request as the proxy read it.
    public struct Request: Sendable {
        /// `GET`, `PUT`...
        public var method: String
        /// The request target (path and query).
        public var target: String
        /// The body's length.
        public var bodyLength: Int
    }

    /// What becomes of a request, given it and its number (1 for the first the proxy read).
    public typealias Decide = @Sendable (Request, Int) -> Action

    private struct State {
        var requests = 0
        var forwarded = 0
    }

    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let upstreamPort: Int
    private let decide: Decide
    private let state = Mutex(State())
    private let runTask = Mutex<Task<Void, Never>?>(nil)
    /// The port the proxy listens on.
    public let port: Int

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Requests read so far.
    public var requests: Int { state.withLock { $0.requests } }
    /// Requests passed on whole so far.
    public var forwarded: Int { state.withLock { $0.forwarded } }

    private init(server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, port: Int, upstreamPort: Int, decide: @escaping Decide) {
        self.server = server
        self.port = port
        self.upstreamPort = upstreamPort
        self.decide = decide
    }

    /// Starts a proxy on `127.0.0.1`, on a port the system chooses, to `127.0.0.1:upstreamPort`;
    /// `decide` is called with each request and its number (1, 2...).
    public static func start(upstreamPort: Int, decide: @escaping Decide) async throws -> FaultProxy {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw ChaosOriginError.notListening
        }
        let proxy = FaultProxy(server: server, port: port, upstreamPort: upstreamPort, decide: decide)
        proxy.runTask.withLock { $0 = Task { await proxy.acceptLoop() } }
        return proxy
    }

    /// Closes the listener and every connection, and returns once they have ended.
    public func stop() async {
        guard let task = runTask.withLock({ task in defer { task = nil }; return task }) else { return }
        server.channel.close(promise: nil)
        task.cancel()
        await task.value
    }

    private func acceptLoop() async {
        await withDiscardingTaskGroup { group in
            do {
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            } catch {
                // the listener closed (stop) or failed: the connections end with the group
            }
            group.cancelAll()
        }
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                var pending: [UInt8] = []
                // the head
                var headEnd: Int? = nil
                while headEnd == nil {
                    guard pending.count < 64 * 1024, let buffer = try await iterator.next() else { return }
                    pending += buffer.readableBytesView
                    headEnd = Self.headEnd(pending)
                }
                let end = headEnd!
                let head = String(decoding: pending[..<end], as: UTF8.self)
                var body = Array(pending[(end + 4)...])
                var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let requestLine = lines.first?.split(separator: " ") ?? []
                guard requestLine.count == 3 else { return }
                let length = lines.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                let request = Request(method: String(requestLine[0]), target: String(requestLine[1]), bodyLength: length)
                let index = state.withLock { state in
                    state.requests += 1
                    return state.requests
                }
                let action = decide(request, index)
                if action == .slowDown {
                    let xml = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>".utf8)
                    try await outbound.write(ByteBuffer(bytes: ChaosResponse.head(status: 503, headers: [
                        ("Content-Type", "application/xml"), ("Retry-After", "0"), ("Content-Length", String(xml.count)), ("Connection", "close"),
                    ]) + xml))
                    return
                }
                if action == .expiredToken {
                    let token = lines.dropFirst().first { $0.lowercased().hasPrefix("x-amz-security-token:") }
                        .map { String($0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)) } ?? ""
                    let xml = Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>ExpiredToken</Code>"
                        + "<Message>The provided token has expired.</Message><Token-0>\(token)</Token-0></Error>").utf8)
                    let sent = request.method == "HEAD" ? [] : xml
                    try await outbound.write(ByteBuffer(bytes: ChaosResponse.head(status: 400, headers: [
                        ("Content-Type", "application/xml"), ("Content-Length", String(xml.count)), ("Connection", "close"),
                        ("Date", OriginDate.format(Date())),
                    ]) + sent))
                    return
                }
                var limit = length
                if case .cutRequest(let bytes) = action { limit = min(bytes, length) }
                while body.count < limit, let buffer = try await iterator.next() {
                    body += buffer.readableBytesView
                }
                body = Array(body.prefix(limit))
                lines.removeAll { $0.lowercased().hasPrefix("connection:") }
                lines.insert("Connection: close", at: 1)
                let upHead = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
                let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: upstreamPort) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
                if case .cutRequest = action {
                    try await upstream.executeThenClose { _, up in
                        try await up.write(ByteBuffer(bytes: upHead + body))
                        try await Self.reset(upstream.channel)
                    }
                    try await Self.reset(connection.channel)
                    return
                }
                var sent = 0
                let cut: Int? = if case .cutResponse(let bytes) = action { bytes } else { nil }
                try await upstream.executeThenClose { down, up in
                    try await up.write(ByteBuffer(bytes: upHead + body))
                    for try await buffer in down {
                        var chunk = buffer
                        if let cut, sent + chunk.readableBytes > cut {
                            chunk = chunk.getSlice(at: chunk.readerIndex, length: cut - sent) ?? ByteBuffer()
                        }
                        sent += chunk.readableBytes
                        if chunk.readableBytes > 0 { try await outbound.write(chunk) }
                        if let cut, sent >= cut { break }
                    }
                }
                if cut != nil {
                    try await Self.reset(connection.channel)
                } else {
                    state.withLock { $0.forwarded += 1 }
                }
            }
        } catch {
            // either side went away, or the proxy stopped: the connection is closed either way
        }
    }

    /// Sets `SO_LINGER` 0, so that the close that follows is a reset.
    private static func reset(_ channel: any Channel) async throws {
        guard let socket = channel as? SocketOptionProvider else { return }
        try await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
