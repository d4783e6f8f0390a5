import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 origin on `127.0.0.1` that writes raw bytes, for the faults an HTTP server library
/// will not produce: a connection reset in the middle of a body, broken chunked framing, a head of
/// 100 KB, a body trickled one byte at a time, a stall that lasts until the client gives up.
///
/// - Each request is read (request line and header fields; a request body is skipped) and handed
///   to the path's handler, which answers with ``ChaosStep``s: bytes to write, a trickle, a stall, a
///   close or a reset. When the steps run out the connection stays open for the next request
///   (keep-alive). A path without a handler answers 404.
/// - It counts requests per path and the connections open; ``waitUntilIdle()`` returns once every
///   connection has ended, so a test can check that nothing was left open.
/// - ``stop()`` closes the listener and every connection (a stall ends there).
///
/// ```swift
/// let origin = try await ChaosOrigin.start()
/// origin.setHandler("/a") { _ in ChaosResponse(steps: [.write(ChaosResponse.head(status: 200, headers: [("Content-Length", "10")])), .write([1, 2, 3]), .reset]) }
/// // ... load origin.url("/a") ...
/// await origin.stop()
/// ```
public final class ChaosOrigin: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (ChaosRequest) -> ChaosResponse

    private struct State {
        var handlers: [String: Handler] = [:]
        var counts: [String: Int] = [:]
        var total = 0
        var connections = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The port the origin listens on.
    public let port: Int
    private let state = Mutex(State())
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let runTask: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// The longest request head read; a longer one closes the connection.
    static let maxRequestHead = 64 * 1024

    private init(server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, port: Int) {
        self.server = server
        self.port = port
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The absolute URL of `path` (which starts with `/`).
    public func url(_ path: String) -> String { baseURL + path }

    /// Starts an origin on `127.0.0.1`, on a port the system chooses, and returns once it listens.
    public static func start() async throws -> ChaosOrigin {
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
        let origin = ChaosOrigin(server: server, port: port)
        origin.runTask.withLock { $0 = Task { await origin.acceptLoop() } }
        return origin
    }

    /// Closes the listener and every connection, and returns once they have ended.
    public func stop() async {
        guard let task = runTask.withLock({ task in defer { task = nil }; return task }) else { return }
        server.channel.close(promise: nil)
        task.cancel()
        await task.value
    }

    // MARK: handlers and counts

    /// Sets (or replaces) the handler of `path` (without its query).
    public func setHandler(_ path: String, _ handler: @escaping Handler) {
        state.withLock { $0.handlers[path] = handler }
    }

    /// Forgets the handler of `path` and its request count (a long run that uses a fresh path per
    /// load calls it so that the origin does not grow with the run).
    public func removeHandler(_ path: String) {
        state.withLock { state in
            state.handlers[path] = nil
            state.counts[path] = nil
        }
    }

    /// Requests that reached `path`.
    public func requestCount(path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// Requests that reached the origin.
    public var totalRequestCount: Int { state.withLock { $0.total } }

    /// Connections open now.
    public var openConnections: Int { state.withLock { $0.connections } }

    /// Returns once no connection is open (at once when none is), or when the task is cancelled.
    public func waitUntilIdle() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.connections == 0 || Task.isCancelled { return true }
                    state.idleWaiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state in
                defer { state.idleWaiters.removeAll() }
                return state.idleWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: serving

    private func acceptLoop() async {
        await withDiscardingTaskGroup { group in
            do {
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        state.withLock { $0.connections += 1 }
                        group.addTask {
                            await self.serve(connection)
                            self.connectionEnded()
                        }
                    }
                }
            } catch {
                // the listener closed (stop) or failed: the connections end with the group
            }
            group.cancelAll()
        }
    }

    private func connectionEnded() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.connections -= 1
            guard state.connections == 0 else { return [] }
            defer { state.idleWaiters.removeAll() }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var reader = RequestReader(iterator: inbound.makeAsyncIterator())
                while let request = try await reader.next() {
                    var numbered = request
                    let handler = state.withLock { state -> Handler? in
                        state.total += 1
                        state.counts[request.path, default: 0] += 1
                        numbered.sequenceNumber = state.counts[request.path]!
                        return state.handlers[request.path]
                    }
                    let response = handler?(numbered) ?? .complete(status: 404, body: Array("no handler for \(request.path)".utf8))
                    for step in response.steps {
                        switch step {
                        case .write(let bytes):
                            try await outbound.write(ByteBuffer(bytes: bytes))
                        case .trickle(let bytes, let interval):
                            for byte in bytes {
                                try await outbound.write(ByteBuffer(bytes: [byte]))
                                try await Task.sleep(for: interval)
                            }
                        case .stall:
                            // nothing more: wait for the client to give up (or the origin to stop)
                            try await reader.drain()
                            return
                        case .close:
                            return
                        case .reset:
                            guard let socket = connection.channel as? SocketOptionProvider else { return }
                            try await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                            return
                        }
                    }
                }
            }
        } catch {
            // the client went away, or the origin stopped: the connection is closed either way
        }
    }
}

/// One step of a ``ChaosOrigin``'s answer.
public enum ChaosStep: Sendable {
    /// These bytes at once.
    case write([UInt8])
    /// These bytes one at a time, waiting `every` after each.
    case trickle([UInt8], every: Duration)
    /// Nothing more, until the client closes the connection or the origin stops.
    case stall
    /// Closes the connection (FIN).
    case close
    /// Resets the connection (RST: `SO_LINGER` 0, then close).
    case reset
}

/// A ``ChaosOrigin``'s answer to one request: its steps in order.
public struct ChaosResponse: Sendable {
    public var steps: [ChaosStep]

    public init(steps: [ChaosStep]) {
        self.steps = steps
    }

    /// A whole, well-formed response with `Content-Length` (the connection stays open).
    public static func complete(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) -> ChaosResponse {
        ChaosResponse(steps: [.write(head(status: status, headers: headers + [("Content-Length", String(body.count))]) + body)])
    }

    /// A status line and header fields, with the blank line that ends them.
    public static func head(status: Int, headers: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 404: return "Not Found"
        case 416: return "Range Not Satisfiable"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}

/// One request as a ``ChaosOrigin`` read it.
public struct ChaosRequest: Sendable {
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The query (after `?`), or nil.
    public var query: String?
    public var headers: [(name: String, value: String)]
    /// 1 for the first request to this path, 2 for the second...
    public var sequenceNumber: Int = 0

    /// The first value of a header field (case-insensitive name), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// The `bytes=FIRST-LAST` (or `bytes=FIRST-`) of a `Range` field, resolved against `length`:
    /// nil without one (or for one this origin does not parse).
    public func byteRange(length: Int) -> Range<Int>? {
        guard let value = header("Range")?.lowercased(), value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), first < length else { return nil }
        let last = parts[1].isEmpty ? length - 1 : min(Int(parts[1]) ?? (length - 1), length - 1)
        return last >= first ? first..<(last + 1) : nil
    }
}

/// The errors of a ``ChaosOrigin``.
public enum ChaosOriginError: Error, Sendable {
    /// The listener has no port.
    case notListening
}

/// Reads request heads off a connection, skipping request bodies.
private struct RequestReader {
    var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    var pending: [UInt8] = []

    /// The next request, or nil when the client closed the connection.
    mutating func next() async throws -> ChaosRequest? {
        while true {
            if let end = Self.headEnd(pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                guard let request = Self.parse(head) else { return nil }
                var skip = Int(request.header("Content-Length") ?? "0") ?? 0
                while skip > 0 {
                    if pending.isEmpty {
                        guard let buffer = try await iterator.next() else { return nil }
                        pending += buffer.readableBytesView
                    }
                    let n = min(skip, pending.count)
                    pending.removeFirst(n)
                    skip -= n
                }
                return request
            }
            guard pending.count < ChaosOrigin.maxRequestHead, let buffer = try await iterator.next() else { return nil }
            pending += buffer.readableBytesView
        }
    }

    /// Reads until the client closes the connection.
    mutating func drain() async throws {
        while try await iterator.next() != nil {}
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    static func parse(_ head: String) -> ChaosRequest? {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count == 3 else { return nil }
        let target = parts[1]
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return ChaosRequest(
            method: String(parts[0]), path: String(pieces[0]), query: pieces.count > 1 ? String(pieces[1]) : nil, headers: headers)
    }
}
