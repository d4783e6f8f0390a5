import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import Synchronization

/// The routes, the request log and the answering logic of a ``TestOrigin``, shared with the server's
/// responder. It writes responses itself through HummingbirdCore's `ResponseWriter`, so that the bytes on
/// the wire are exactly the scripted ones (no `Date` rewriting, bodies cut or stretched on purpose).
final class OriginCore: Sendable {
    struct State {
        var routes: [String: TestRoute] = [:]
        var counts: [String: Int] = [:]
        var log: [RecordedRequest] = []
        var countWaiters: [Int: CountWaiter] = [:]
        var nextWaiterID = 0
    }

    /// A task waiting for `count` requests to `path` (to the origin when nil).
    struct CountWaiter {
        var path: String?
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    /// Size of the chunks of generated bodies.
    static let generatedChunkSize = 64 * 1024

    let state = Mutex(State())
    let stopSignal = TestGate()

    /// Answers one request: records it, computes the scripted response and writes it.
    func respond(to request: Request, writer: consuming ResponseWriter) async throws {
        let (recorded, route) = self.record(request)
        let response = try await Self.response(for: route, request: recorded)
        if let gate = response.gate {
            // whichever comes first: the test opens the gate, or the origin stops
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await gate.wait() }
                group.addTask { await self.stopSignal.wait() }
                await group.next()
                group.cancelAll()
            }
            if self.stopSignal.isOpen { throw TestOrigin.Error.stopped }
        }
        if let delay = response.delay {
            try await Task.sleep(for: delay)
        }
        var head = HTTPResponse(status: HTTPResponse.Status(code: response.status))
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            head.headerFields.append(HTTPField(name: fieldName, value: value))
        }
        if head.headerFields[.date] == nil {
            head.headerFields[.date] = OriginDate.format(Date())
        }
        let bodyless = (100..<200).contains(response.status) || response.status == 204 || response.status == 304
        if !bodyless, head.headerFields[.contentLength] == nil, let length = response.body.declaredLength {
            head.headerFields[.contentLength] = String(length)
        }
        var bodyWriter = try await writer.writeHead(head)
        if recorded.method != "HEAD" && !bodyless {
            try await self.writeBody(response.body, to: &bodyWriter)
        }
        try await bodyWriter.finish(nil)
    }

    private func record(_ request: Request) -> (RecordedRequest, TestRoute?) {
        let path = request.uri.path
        let headers = request.headers.map { RecordedRequest.Header(name: $0.name.rawName, value: $0.value) }
        let (recorded, route, satisfied) = self.state.withLock { state in
            let number = (state.counts[path] ?? 0) + 1
            state.counts[path] = number
            let recorded = RecordedRequest(
                method: request.method.rawValue,
                path: path,
                query: request.uri.query,
                headers: headers,
                sequenceNumber: number
            )
            state.log.append(recorded)
            let satisfied = state.countWaiters.filter { Self.isSatisfied($0.value, state) }
            for id in satisfied.keys { state.countWaiters[id] = nil }
            return (recorded, state.routes[path], satisfied.values.map(\.continuation))
        }
        for continuation in satisfied { continuation.resume() }
        return (recorded, route)
    }

    private static func isSatisfied(_ waiter: CountWaiter, _ state: State) -> Bool {
        let count = waiter.path.map { state.counts[$0] ?? 0 } ?? state.log.count
        return count >= waiter.count
    }

    /// Returns once at least `count` requests reached `path` (the origin when nil), or when the task is cancelled.
    func waitForRequests(path: String?, count: Int) async {
        let id = self.state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiter = CountWaiter(path: path, count: count, continuation: continuation)
                let resumeNow = self.state.withLock { state in
                    if Task.isCancelled || Self.isSatisfied(waiter, state) { return true }
                    state.countWaiters[id] = waiter
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.countWaiters.removeValue(forKey: id) }
            waiter?.continuation.resume()
        }
    }

    private static func response(for route: TestRoute?, request: RecordedRequest) async throws -> TestResponse {
        switch route {
        case .none:
            return TestResponse(status: 404, headers: [("Content-Type", "text/plain")], body: .text("no route for \(request.path)"))
        case .response(let response):
            return response
        case .sequence(let responses):
            guard let last = responses.last else { return TestResponse(status: 404) }
            let index = request.sequenceNumber - 1
            return index < responses.count ? responses[index] : last
        case .resource(let resource):
            return resource.response(to: request)
        case .redirect(let location, let status):
            return TestResponse.redirect(to: location, status: status)
        case .handler(let handler):
            return try await handler(request)
        }
    }

    private func writeBody(_ body: TestBody, to writer: inout some ResponseBodyWriter) async throws {
        switch body {
        case .empty:
            return
        case .bytes(let bytes):
            try await writer.write(ByteBuffer(bytes: bytes))
        case .slow(let chunks, let delay):
            for chunk in chunks {
                try await Task.sleep(for: delay)
                try await writer.write(ByteBuffer(bytes: chunk))
            }
        case .stall(let prefix, _):
            if !prefix.isEmpty {
                try await writer.write(ByteBuffer(bytes: prefix))
            }
            await self.stopSignal.wait()
            throw TestOrigin.Error.stopped
        case .truncated(let bytes, _):
            if !bytes.isEmpty {
                try await writer.write(ByteBuffer(bytes: bytes))
            }
            throw TestOrigin.Error.bodyCutShort
        case .overlong(let bytes, _):
            try await writer.write(ByteBuffer(bytes: bytes))
        case .generated(let length, let offset):
            var written = 0
            while written < length {
                let count = min(Self.generatedChunkSize, length - written)
                try await writer.write(Self.generatedChunk(offset: offset + written, count: count))
                written += count
            }
        case .chunkedEncoding(let chunks):
            for chunk in chunks where !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
        }
    }

    /// One period of the generated pattern plus a chunk, so that any chunk is one slice of it.
    private static let generatedTable: [UInt8] = TestContent.generatedBytes(0..<(generatedChunkSize + 251))

    private static func generatedChunk(offset: Int, count: Int) -> ByteBuffer {
        let start = offset % 251
        return ByteBuffer(bytes: Self.generatedTable[start..<(start + count)])
    }
}
