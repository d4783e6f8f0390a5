@testable import AssetServer
import AssetTestSupport
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@Suite("The fast path: hot answers from a connection's raw bytes")
struct FastPathTests {
    // MARK: reading heads

    static func parse(_ text: String, limit: Int = 32 << 10) -> RawRequestHead.Parse {
        Array(text.utf8).withUnsafeBytes { RawRequestHead.parse($0, limit: limit) }
    }

    static func head(_ text: String) -> RawRequestHead? {
        if case .head(let head) = parse(text) { return head }
        return nil
    }

    @Test func plainHeadsAreRead() throws {
        let text = "GET /v1/asset?url=x HTTP/1.1\r\nHost: a\r\naccept:  image/webp, */* \r\n\r\nGET /next"
        let head = try #require(Self.head(text))
        let bytes = Array(text.utf8)
        #expect(head.method == .get)
        #expect(String(decoding: bytes[head.target], as: UTF8.self) == "/v1/asset?url=x")
        #expect(head.length == text.utf8.count - "GET /next".utf8.count)
        #expect(head.bodyLength == 0)
        #expect(!head.needsResponder && !head.closes && !head.authorized)
        #expect(head.accept.map { String(decoding: bytes[$0], as: UTF8.self) } == "image/webp, */*")

        #expect(Self.head("HEAD / HTTP/1.1\r\n\r\n")?.method == .head)
        #expect(Self.head("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n")?.bodyLength == 12)
        #expect(Self.head("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n")?.method == .other)
        #expect(Self.head("GET / HTTP/1.1\r\nAuthorization: Basic x\r\n\r\n")?.authorized == true)
        #expect(Self.head("GET / HTTP/1.1\r\nConnection: Keep-Alive\r\n\r\n")?.needsResponder == false)
    }

    @Test func fieldsThatNeedTheResponderAreNoticed() {
        for field in [
            "If-None-Match: \"a\"", "if-modified-since: x", "If-Match: *", "If-Unmodified-Since: x",
            "If-Range: x", "Cache-Control: no-cache", "Pragma: no-cache", "Expect: 100-continue", "Connection: te",
        ] {
            #expect(Self.head("GET / HTTP/1.1\r\n\(field)\r\n\r\n")?.needsResponder == true, "\(field)")
        }
        let closing = Self.head("GET / HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n")
        #expect(closing?.closes == true)
        #expect(closing?.needsResponder == true)
        #expect(Self.head("GET / HTTP/1.1\r\nAccept: a\r\nAccept: b\r\n\r\n")?.needsResponder == true)
        // one range is the fast path's to try; two fields are the responder's
        let text = "GET / HTTP/1.1\r\nRange: bytes=0-1\r\n\r\n"
        let ranged = Self.head(text)
        #expect(ranged?.needsResponder == false)
        #expect(ranged?.range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) } == "bytes=0-1")
        #expect(Self.head("GET / HTTP/1.1\r\nRange: bytes=0-1\r\nRange: bytes=2-3\r\n\r\n")?.needsResponder == true)
    }

    @Test func whatIsNotPlainIsTheDecoders() {
        for text in [
            "GET / HTTP/1.1\nHost: a\n\n",  // bare LF
            "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n",  // lone CR
            "GET / HTTP/1.0\r\n\r\n",  // HTTP/1.0
            "GET / HTTP/2.0\r\n\r\n",
            "GET /  HTTP/1.1\r\n\r\n",  // two spaces
            "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",  // obs-fold
            "GET / HTTP/1.1\r\nHost : a\r\n\r\n",  // space before colon
            "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n",
            "GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            "GET / HTTP/1.1\r\nConnection: Upgrade\r\n\r\n",
            "CONNECT a:443 HTTP/1.1\r\n\r\n",
            "\r\nGET / HTTP/1.1\r\n\r\n",  // an empty line first
            "GET /\u{7F} HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n",
        ] {
            #expect(Self.parse(text) == .unframed, "\(text.debugDescription)")
        }
        // no end within the limit
        #expect(Self.parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 200), limit: 100) == .unframed)
        #expect(Self.parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 200) + "\r\n\r\n", limit: 100) == .unframed)
    }

    @Test func aHeadWithoutItsEndIsIncomplete() {
        for text in ["", "G", "GET / HTTP/1.1", "GET / HTTP/1.1\r", "GET / HTTP/1.1\r\nHost: a\r\n", "GET / HTTP/1.1\r\nHost: a\r\n\r"] {
            #expect(Self.parse(text) == .incomplete, "\(text.debugDescription)")
        }
    }

    // MARK: the handler, on an embedded channel

    /// The bytes a request made of `text` passed on to the decoder, and the bytes written back.
    final class Recorder: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        var passedOn: [UInt8] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            passedOn += Array(unwrapInboundIn(data).readableBytesView)
        }
    }

    static func embedded(_ harness: ServerHarness) throws -> (EmbeddedChannel, Recorder) {
        let channel = EmbeddedChannel()
        let recorder = Recorder()
        let handler = FastPathHandler(
            hotPath: HotPath(context: harness.server.responder.context), lifecycle: ConnectionLifecycle(idleTimeout: nil),
            maxHeadBytes: 32 << 10)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.pipeline.syncOperations.addHandler(recorder)
        return (channel, recorder)
    }

    static func written(_ channel: EmbeddedChannel) throws -> String {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += Array(buffer.readableBytesView) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func feed(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
        channel.pipeline.fireChannelReadComplete()
    }

    @Test func hotRequestsAreAnsweredAndOthersPassedOnWhole() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot body".utf8)), headers: freshForAnHour)))
            let hot = harness.endpoint("asset", originPath: "/hot.txt")
            _ = try await harness.send(hot)  // now in memory
            let (channel, recorder) = try Self.embedded(harness)

            // a hot request is answered, nothing passed on
            try Self.feed(channel, "GET \(hot) HTTP/1.1\r\nHost: a\r\n\r\n")
            let answer = try Self.written(channel)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(answer.contains("\r\nX-Assetpipe-Cache: memory\r\n"))
            #expect(answer.contains("\r\nAge: "))
            #expect(answer.hasSuffix("\r\n\r\nhot body"))
            #expect(recorder.passedOn.isEmpty)

            // HEAD: the same head, no body
            try Self.feed(channel, "HEAD \(hot) HTTP/1.1\r\nHost: a\r\n\r\n")
            let headAnswer = try Self.written(channel)
            #expect(headAnswer.hasSuffix("\r\n\r\n"))
            #expect(headAnswer.lowercased().contains("content-length: 8\r\n"))

            // a cold one, a conditional one and one with a body are passed on byte for byte; the
            // body's bytes (which look like a request) are not read as a request
            let cold = "GET /v1/asset?url=cold HTTP/1.1\r\nHost: a\r\n\r\n"
            let conditional = "GET \(hot) HTTP/1.1\r\nIf-None-Match: \"x\"\r\n\r\n"
            let withBody = "GET \(hot) HTTP/1.1\r\nContent-Length: 24\r\n\r\nGET / HTTP/1.1\r\nA: b\r\n\r\n"
            try Self.feed(channel, cold + conditional + withBody)
            #expect(String(decoding: recorder.passedOn, as: UTF8.self) == cold + conditional + withBody)
            #expect(try Self.written(channel).isEmpty)
            _ = try channel.finish()
        }
    }

    @Test func aHeadInPiecesIsAnsweredAndTooManyPiecesGoToTheDecoder() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot".utf8)), headers: freshForAnHour)))
            let hot = harness.endpoint("asset", originPath: "/hot.txt")
            _ = try await harness.send(hot)
            let (channel, recorder) = try Self.embedded(harness)
            let request = "GET \(hot) HTTP/1.1\r\nHost: a\r\n\r\n"
            let split = request.index(request.startIndex, offsetBy: 20)
            try Self.feed(channel, String(request[..<split]))
            #expect(try Self.written(channel).isEmpty)
            try Self.feed(channel, String(request[split...]))
            #expect(try Self.written(channel).hasSuffix("\r\n\r\nhot"))
            #expect(recorder.passedOn.isEmpty)

            // a byte at a time: after a few reads the decoder takes the head, and all that follows
            for byte in request.utf8 { try Self.feed(channel, String(decoding: [byte], as: UTF8.self)) }
            #expect(String(decoding: recorder.passedOn, as: UTF8.self) == request)
            try Self.feed(channel, request)
            #expect(String(decoding: recorder.passedOn, as: UTF8.self) == request + request)
            #expect(try Self.written(channel).isEmpty)
            _ = try channel.finish()
        }
    }

    @Test func afterWhatIsNotPlainEveryByteIsTheDecoders() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot".utf8)), headers: freshForAnHour)))
            let hot = harness.endpoint("asset", originPath: "/hot.txt")
            _ = try await harness.send(hot)
            let (channel, recorder) = try Self.embedded(harness)
            let chunked = "POST /v1/prefetch HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            let next = "GET \(hot) HTTP/1.1\r\n\r\n"
            try Self.feed(channel, chunked + next)
            try Self.feed(channel, next)
            #expect(String(decoding: recorder.passedOn, as: UTF8.self) == chunked + next + next)
            #expect(try Self.written(channel).isEmpty)
            _ = try channel.finish()
        }
    }

    // MARK: ranges from the chunk store

    /// A 300 KB video in 64 KiB chunks, all of it stored; its `/v1/asset` target.
    static func storedVideo(_ harness: ServerHarness, headers: [(String, String)] = freshForAnHour) async throws -> String {
        harness.origin.setRoute("/v.mp4", .resource(TestResource(content: .generated(length: 300_000), eTag: "\"v\"", headers: headers)))
        let target = harness.endpoint("asset", originPath: "/v.mp4")
        let whole = try await harness.send(target, headers: [("Range", "bytes=0-")])
        #expect(whole.body == TestContent.generatedBytes(0..<300_000))
        return target
    }

    @Test func storedRangesAreSentFromTheChunkFilesWithTheRespondersHead() async throws {
        try await ServerHarness.with(chunkSize: 64 << 10) { harness in
            let target = try await Self.storedVideo(harness)
            let (channel, recorder) = try Self.embedded(harness)
            // over three chunks: the head, then one file region per chunk, nothing passed on
            try Self.feed(channel, "GET \(target) HTTP/1.1\r\nRange: bytes=60000-200000\r\n\r\n")
            var parts: [IOData] = []
            while let part = try channel.readOutbound(as: IOData.self) { parts.append(part) }
            #expect(recorder.passedOn.isEmpty)
            guard case .byteBuffer(let head) = parts.first else {
                Issue.record("no head written")
                return
            }
            #expect(String(buffer: head).hasPrefix("HTTP/1.1 206 Partial Content\r\n"))
            let regions = parts.dropFirst().compactMap { part -> Range<Int>? in
                if case .fileRegion(let region) = part { return region.readerIndex..<region.endIndex }
                return nil
            }
            #expect(regions == [60_000..<65_536, 0..<65_536, 0..<65_536, 0..<3_393])
            _ = try channel.finish()

            // over a socket: the bytes, and the head the responder gives the same range (If-Range
            // makes it the responder's) but the age
            let fast = try await harness.send(target, headers: [("Range", "bytes=60000-200000")])
            let slow = try await harness.send(target, headers: [("Range", "bytes=60000-200000"), ("If-Range", "\"v\"")])
            #expect(fast.status == 206)
            #expect(fast.body == TestContent.generatedBytes(60_000..<200_001))
            #expect(slow.body == fast.body)
            func fields(_ answer: ServerHarness.Answer) -> [String: String] {
                var fields: [String: String] = [:]
                for field in answer.headers where field.name.lowercased() != "age" { fields[field.name.lowercased()] = field.value }
                return fields
            }
            #expect(fields(fast) == fields(slow))
            #expect(fast.header("Age") != nil)
        }
    }

    @Test func rangesTheStoreCannotAnswerWholeGoToTheResponder() async throws {
        try await ServerHarness.with(chunkSize: 64 << 10) { harness in
            let target = try await Self.storedVideo(harness)
            harness.origin.setRoute("/stale.mp4", .resource(TestResource(content: .generated(length: 200_000), eTag: "\"s\"",
                headers: [("Cache-Control", "no-cache")])))
            let stale = harness.endpoint("asset", originPath: "/stale.mp4")
            _ = try await harness.send(stale, headers: [("Range", "bytes=0-")])
            harness.origin.setRoute("/part.mp4", .resource(TestResource(content: .generated(length: 300_000), headers: freshForAnHour)))
            let part = harness.endpoint("asset", originPath: "/part.mp4")
            _ = try await harness.send(part, headers: [("Range", "bytes=0-10")])  // one chunk stored
            let (channel, recorder) = try Self.embedded(harness)
            let requests = [
                "GET \(stale) HTTP/1.1\r\nRange: bytes=0-10\r\n\r\n",  // stored, but to be revalidated
                "GET \(part) HTTP/1.1\r\nRange: bytes=0-100000\r\n\r\n",  // the second chunk is missing
                "GET \(target) HTTP/1.1\r\nRange: bytes=0-1,5-6\r\n\r\n",  // several ranges
                "GET \(target) HTTP/1.1\r\nRange: bytes=400000-\r\n\r\n",  // past the end: a 416
                "HEAD \(target) HTTP/1.1\r\nRange: bytes=0-1\r\n\r\n",
            ]
            try Self.feed(channel, requests.joined())
            #expect(String(decoding: recorder.passedOn, as: UTF8.self) == requests.joined())
            _ = try channel.finish()
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func hotRangesLeaveNoDescriptorOpen() async throws {
        try await ServerHarness.with(chunkSize: 64 << 10) { harness in
            let target = try await Self.storedVideo(harness)
            let connection = try RawConnection(port: harness.port)
            let request = "GET \(target) HTTP/1.1\r\nRange: bytes=65000-67000\r\n\r\n"  // over two chunks
            // warm: the first answer opens what the process keeps open (the store, the loader)
            try connection.send(request)
            _ = await onOwnThread { connection.readResponses(count: 1, timeout: 10) }
            let before = Self.openDescriptors(under: harness.directory.path)
            let answers = await onOwnThread { () -> [RawConnection.Response] in
                var answers: [RawConnection.Response] = []
                for _ in 0..<50 {
                    guard (try? connection.send(request + request)) != nil else { break }
                    answers += connection.readResponses(count: 2, timeout: 10)
                }
                return answers
            }
            #expect(answers.count == 100)
            #expect(answers.allSatisfy { $0.status == 206 })
            #expect(answers.allSatisfy { $0.fields["content-length"] == "2001" && $0.fields["x-assetpipe-cache"] == "chunks" })
            #expect(Self.openDescriptors(under: harness.directory.path) <= before)
        }
    }

    /// The process's open descriptors of files under `directory` (this harness's chunk files, not
    /// what tests running beside it open).
    static func openDescriptors(under directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))?.hasPrefix(directory) == true
        }.count
    }

    // MARK: over a socket

    @Test(.timeLimit(.minutes(3)))
    func pipelinedAnswersKeepTheirOrder() async throws {
        try await ServerHarness.with { harness in
            let gate = TestGate()
            harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot".utf8)), headers: freshForAnHour)))
            harness.origin.setRoute("/slow.txt", .response(TestResponse(headers: freshForAnHour, body: .text("slow"), gate: gate)))
            let hot = harness.endpoint("asset", originPath: "/hot.txt")
            let slow = harness.endpoint("asset", originPath: "/slow.txt")
            _ = try await harness.send(hot)
            let connection = try RawConnection(port: harness.port)
            // one write: a hot request, one the responder answers late, and a hot one again
            try connection.send(["GET \(hot)", "GET \(slow)", "GET \(hot)"].map { "\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined())
            await harness.origin.waitForRequests(path: "/slow.txt", count: 1)
            let early = await onOwnThread { connection.readResponses(count: 3, timeout: 0.5) }
            // only the first is out: the third waits for the second
            #expect(early.map(\.body) == ["hot"])
            gate.open()
            let rest = await onOwnThread { connection.readResponses(count: 2, timeout: 20) }
            #expect(rest.map(\.body) == ["slow", "hot"])
            #expect(rest.map(\.status) == [200, 200])
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func theIdleTimeoutCountsFastAnswersAndStillCloses() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.idleTimeout = .seconds(1) }) { harness in
            harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot".utf8)), headers: freshForAnHour)))
            let hot = harness.endpoint("asset", originPath: "/hot.txt")
            _ = try await harness.send(hot)
            let connection = try RawConnection(port: harness.port)
            // requests 0.4 s apart for 2.4 s, longer than the timeout, keep the connection
            let answers = await onOwnThread { () -> [RawConnection.Response] in
                var answers: [RawConnection.Response] = []
                for _ in 0..<7 {
                    guard (try? connection.send("GET \(hot) HTTP/1.1\r\nHost: a\r\n\r\n")) != nil else { break }
                    answers += connection.readResponses(count: 1, timeout: 5)
                    usleep(400_000)
                }
                return answers
            }
            #expect(answers.map(\.body) == Array(repeating: "hot", count: 7))
            // then, silent, it is closed
            let end = await onOwnThread { connection.readUntilClosed(timeout: 10) }
            #expect(end.closed)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func gracefulShutdownClosesAConnectionOfFastAnswers() async throws {
        let harness = try await ServerHarness.start()
        harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot".utf8)), headers: freshForAnHour)))
        let hot = harness.endpoint("asset", originPath: "/hot.txt")
        _ = try await harness.send(hot)
        let connection = try RawConnection(port: harness.port)
        try connection.send("GET \(hot) HTTP/1.1\r\nHost: a\r\n\r\n")
        let answer = await onOwnThread { connection.readResponses(count: 1, timeout: 5) }
        #expect(answer.map(\.body) == ["hot"])
        await harness.group.triggerGracefulShutdown()
        _ = try await harness.runTask.value
        let end = await onOwnThread { connection.readUntilClosed(timeout: 10) }
        #expect(end.closed)
        try await harness.client.shutdown()
        try await harness.manager.shutdown()
        await harness.origin.stop()
        try? FileManager.default.removeItem(at: harness.directory)
    }

    @Test(.timeLimit(.minutes(3)))
    func http10AndBodiesGoThroughTheDecoderOnOneConnection() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/hot.txt", .resource(TestResource(content: .bytes(Array("hot".utf8)), headers: freshForAnHour)))
            let hot = harness.endpoint("asset", originPath: "/hot.txt")
            _ = try await harness.send(hot)
            let connection = try RawConnection(port: harness.port)
            try connection.send(
                "GET \(hot) HTTP/1.1\r\nContent-Length: 24\r\n\r\nGET / HTTP/1.1\r\nA: b\r\n\r\n" + "HEAD \(hot) HTTP/1.1\r\n\r\n"
                    + "GET \(hot) HTTP/1.1\r\n\r\n")
            let answers = await onOwnThread { connection.readResponses(count: 3, timeout: 10, heads: [1]) }
            #expect(answers.map(\.status) == [200, 200, 200])
            #expect(answers.map(\.body) == ["hot", "", "hot"])
            let old = try RawConnection(port: harness.port)
            try old.send("GET \(hot) HTTP/1.0\r\n\r\n")
            let oldAnswer = await onOwnThread { old.readResponses(count: 1, timeout: 10) }
            #expect(oldAnswer.map(\.body) == ["hot"])
        }
    }
}

extension RawConnection {
    /// One response read off the socket.
    struct Response {
        var status: Int
        var fields: [String: String]
        var body: String
    }

    /// Reads up to `count` responses (framed by `Content-Length`; those at the indices in `heads`
    /// answer `HEAD` and have no body) within `timeout`.
    func readResponses(count: Int, timeout: Double, heads: Set<Int> = []) -> [Response] {
        var bytes: [UInt8] = []
        var responses: [Response] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while responses.count < count {
            // parse what is there
            if let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                var fields: [String: String] = [:]
                for line in head.dropFirst() {
                    if let colon = line.firstIndex(of: ":") {
                        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    }
                }
                let length = heads.contains(responses.count) ? 0 : Int(fields["content-length"] ?? "0") ?? 0
                if bytes.count - end.upperBound >= length {
                    let status = Int(head[0].split(separator: " ")[1]) ?? 0
                    let body = String(decoding: bytes[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                    responses.append(Response(status: status, fields: fields, body: body))
                    bytes.removeFirst(end.upperBound + length)
                    continue
                }
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(min(100, max(1, left * 1_000)))) <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return responses
    }
}
