import AssetTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@Suite("TestOrigin", .timeLimit(.minutes(3)))
struct TestOriginTests {
    let client = HTTPClient.shared

    func get(_ url: String, headers: [(String, String)] = [], method: HTTPMethod = .GET) async throws -> (HTTPClientResponse, [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await self.client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (response, Array(body.readableBytesView))
    }

    @Test func countsAndLogsRequestsPerPath() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/a", .response(.ok("hello", headers: [("Content-Type", "text/plain")])))
            for number in 1...3 {
                let (response, body) = try await self.get(origin.url("/a?n=\(number)"), headers: [("X-Test", "\(number)")])
                #expect(response.status == .ok)
                #expect(body == Array("hello".utf8))
                #expect(response.headers["Content-Length"] == ["5"])
            }
            let (missing, _) = try await self.get(origin.url("/missing"))
            #expect(missing.status == .notFound)

            #expect(origin.requestCount(path: "/a") == 3)
            #expect(origin.requestCount(path: "/missing") == 1)
            #expect(origin.requestCount(path: "/never") == 0)
            #expect(origin.totalRequestCount == 4)
            let logged = origin.requests(path: "/a")
            #expect(logged.map(\.method) == ["GET", "GET", "GET"])
            #expect(logged.map(\.query) == ["n=1", "n=2", "n=3"])
            #expect(logged.map { $0.header("x-test") } == ["1", "2", "3"])
            #expect(logged.map(\.sequenceNumber) == [1, 2, 3])

            origin.resetRequestLog()
            #expect(origin.totalRequestCount == 0)
            #expect(origin.requestCount(path: "/a") == 0)
        }
    }

    @Test func sendsScriptedHeadersVerbatimAndADateByDefault() async throws {
        try await withTestOrigin { origin in
            let date = "Sun, 06 Nov 1994 08:49:37 GMT"
            origin.setRoute("/dated", .response(.ok("x", headers: [("Date", date), ("Cache-Control", "max-age=60"), ("Vary", "Accept")])))
            origin.setRoute("/undated", .response(.ok("x")))
            let (dated, _) = try await self.get(origin.url("/dated"))
            #expect(dated.headers["Date"] == [date])
            #expect(dated.headers["Cache-Control"] == ["max-age=60"])
            #expect(dated.headers["Vary"] == ["Accept"])
            let (undated, _) = try await self.get(origin.url("/undated"))
            #expect(undated.headers["Date"].count == 1)
            #expect(undated.headers["Date"] != [date])
        }
    }

    @Test func truncatedBodyIsShortOnTheWireAndFailsTheClient() async throws {
        try await withTestOrigin { origin in
            let sent = [UInt8](repeating: 7, count: 100)
            origin.setRoute("/short", .response(TestResponse(body: .truncated(sent, declaredLength: 1_000))))

            await #expect(throws: (any Error).self) {
                _ = try await self.get(origin.url("/short"))
            }

            let raw = try await rawHTTPExchange(port: origin.port, request: "GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
            let (head, body) = try #require(splitRawResponse(raw))
            #expect(head.lowercased().contains("content-length: 1000"))
            #expect(body == sent)
        }
    }

    @Test func overlongBodySendsMoreThanContentLength() async throws {
        try await withTestOrigin { origin in
            let sent = Array("0123456789".utf8)
            origin.setRoute("/long", .response(TestResponse(body: .overlong(sent, declaredLength: 4))))
            let raw = try await rawHTTPExchange(port: origin.port, request: "GET /long HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let (head, body) = try #require(splitRawResponse(raw))
            #expect(head.lowercased().contains("content-length: 4"))
            #expect(body == sent)
        }
    }

    @Test func overlongBodyLooksCompleteToAnHTTPClient() async throws {
        // HTTP/1.1 framing ends the body at Content-Length: a client sees a whole, short body, and the
        // surplus bytes poison the connection, not the response. The loader cannot detect this case.
        try await withTestOrigin { origin in
            origin.setRoute("/long", .response(TestResponse(body: .overlong(Array("0123456789".utf8), declaredLength: 4))))
            let (response, body) = try await self.get(origin.url("/long"))
            #expect(response.status == .ok)
            #expect(body == Array("0123".utf8))
        }
    }

    @Test func resourceAnswersConditionalRequestsWith304() async throws {
        try await withTestOrigin { origin in
            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            origin.setRoute(
                "/r",
                .resource(TestResource(content: .bytes(Array("body".utf8)), eTag: "\"v1\"", lastModified: modified, headers: [("Cache-Control", "max-age=0")]))
            )
            let (first, body) = try await self.get(origin.url("/r"))
            #expect(first.status == .ok)
            #expect(body == Array("body".utf8))
            #expect(first.headers["ETag"] == ["\"v1\""])
            let lastModified = try #require(first.headers["Last-Modified"].first)
            #expect(lastModified == "Tue, 14 Nov 2023 22:13:20 GMT")

            let (matching, matchingBody) = try await self.get(origin.url("/r"), headers: [("If-None-Match", "\"v0\", W/\"v1\"")])
            #expect(matching.status == .notModified)
            #expect(matchingBody.isEmpty)
            #expect(matching.headers["ETag"] == ["\"v1\""])
            #expect(matching.headers["Cache-Control"] == ["max-age=0"])

            let (changed, _) = try await self.get(origin.url("/r"), headers: [("If-None-Match", "\"v0\"")])
            #expect(changed.status == .ok)

            let (sinceSame, _) = try await self.get(origin.url("/r"), headers: [("If-Modified-Since", lastModified)])
            #expect(sinceSame.status == .notModified)
            let (sinceBefore, _) = try await self.get(origin.url("/r"), headers: [("If-Modified-Since", "Tue, 14 Nov 2023 22:13:19 GMT")])
            #expect(sinceBefore.status == .ok)
            // If-None-Match takes precedence over If-Modified-Since
            let (both, _) = try await self.get(origin.url("/r"), headers: [("If-None-Match", "\"v0\""), ("If-Modified-Since", lastModified)])
            #expect(both.status == .ok)
            #expect(origin.requestCount(path: "/r") == 6)
        }
    }

    @Test func resourceServesByteRanges() async throws {
        try await withTestOrigin { origin in
            let content = (0..<100).map { UInt8($0) }
            origin.setRoute("/v", .resource(TestResource(content: .bytes(content), eTag: "\"v1\"")))
            origin.setRoute("/weak", .resource(TestResource(content: .bytes(content), eTag: "W/\"v1\"")))
            origin.setRoute("/norange", .resource(TestResource(content: .bytes(content), supportsRanges: false)))

            let (middle, middleBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=10-19")])
            #expect(middle.status == .partialContent)
            #expect(middle.headers["Content-Range"] == ["bytes 10-19/100"])
            #expect(middle.headers["Accept-Ranges"] == ["bytes"])
            #expect(middleBody == Array(content[10..<20]))

            let (suffix, suffixBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=-5")])
            #expect(suffix.headers["Content-Range"] == ["bytes 95-99/100"])
            #expect(suffixBody == Array(content[95...]))

            let (open, openBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=90-")])
            #expect(open.status == .partialContent)
            #expect(openBody == Array(content[90...]))

            let (clipped, clippedBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=98-500")])
            #expect(clipped.headers["Content-Range"] == ["bytes 98-99/100"])
            #expect(clippedBody == [98, 99])

            let (outside, outsideBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=100-200")])
            #expect(outside.status == .rangeNotSatisfiable)
            #expect(outside.headers["Content-Range"] == ["bytes */100"])
            #expect(outsideBody.isEmpty)

            let (sameTag, sameTagBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=0-1"), ("If-Range", "\"v1\"")])
            #expect(sameTag.status == .partialContent)
            #expect(sameTagBody == [0, 1])
            let (otherTag, otherTagBody) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=0-1"), ("If-Range", "\"v2\"")])
            #expect(otherTag.status == .ok)
            #expect(otherTagBody == content)
            let (weakTag, _) = try await self.get(origin.url("/weak"), headers: [("Range", "bytes=0-1"), ("If-Range", "W/\"v1\"")])
            #expect(weakTag.status == .ok)

            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            origin.setRoute("/dated", .resource(TestResource(content: .bytes(content), lastModified: modified)))
            let (sameDate, sameDateBody) = try await self.get(
                origin.url("/dated"),
                headers: [("Range", "bytes=3-4"), ("If-Range", "Tue, 14 Nov 2023 22:13:20 GMT")]
            )
            #expect(sameDate.status == .partialContent)
            #expect(sameDateBody == [3, 4])
            let (otherDate, _) = try await self.get(
                origin.url("/dated"),
                headers: [("Range", "bytes=3-4"), ("If-Range", "Tue, 14 Nov 2023 22:13:21 GMT")]
            )
            #expect(otherDate.status == .ok)

            let (multiple, _) = try await self.get(origin.url("/v"), headers: [("Range", "bytes=0-1, 5-6")])
            #expect(multiple.status == .ok)

            let (ignored, ignoredBody) = try await self.get(origin.url("/norange"), headers: [("Range", "bytes=0-1")])
            #expect(ignored.status == .ok)
            #expect(ignored.headers["Accept-Ranges"] == ["none"])
            #expect(ignoredBody == content)
        }
    }

    @Test func sequenceAnswersInOrderThenRepeatsTheLast() async throws {
        try await withTestOrigin { origin in
            origin.setRoute(
                "/flaky",
                .sequence([
                    TestResponse(status: 500),
                    TestResponse(status: 429, headers: [("Retry-After", "1")]),
                    .ok("finally"),
                ])
            )
            var statuses: [UInt] = []
            var retryAfter: [String] = []
            for _ in 0..<4 {
                let (response, _) = try await self.get(origin.url("/flaky"))
                statuses.append(response.status.code)
                retryAfter += response.headers["Retry-After"]
            }
            #expect(statuses == [500, 429, 200, 200])
            #expect(retryAfter == ["1"])
        }
    }

    @Test func redirectChainsAndLoops() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/a", .redirect(to: "/b", status: 301))
            origin.setRoute("/b", .redirect(to: origin.url("/c")))
            origin.setRoute("/c", .response(.ok("end")))
            let (response, body) = try await self.get(origin.url("/a"))
            #expect(response.status == .ok)
            #expect(body == Array("end".utf8))
            #expect(origin.requests.map(\.path) == ["/a", "/b", "/c"])

            origin.setRoute("/x", .redirect(to: "/y"))
            origin.setRoute("/y", .redirect(to: "/x"))
            await #expect(throws: HTTPClientError.redirectCycleDetected) {
                _ = try await self.get(origin.url("/x"))
            }
        }
    }

    @Test func slowBodyArrivesInDelayedChunks() async throws {
        try await withTestOrigin { origin in
            let chunks = (0..<4).map { [UInt8](repeating: UInt8($0), count: 10) }
            origin.setRoute("/slow", .response(TestResponse(body: .slow(chunks: chunks, delay: .milliseconds(50)))))
            let clock = ContinuousClock()
            let start = clock.now
            let (response, body) = try await self.get(origin.url("/slow"))
            #expect(clock.now - start >= .milliseconds(200))
            #expect(response.headers["Content-Length"] == ["40"])
            #expect(body == chunks.flatMap { $0 })
        }
    }

    @Test func delayedHeadArrivesLate() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/late", .response(TestResponse(status: 204, delay: .milliseconds(100))))
            let clock = ContinuousClock()
            let start = clock.now
            let (response, _) = try await self.get(origin.url("/late"))
            #expect(response.status == .noContent)
            #expect(clock.now - start >= .milliseconds(100))
        }
    }

    @Test func stalledBodyIsReleasedByStop() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/stall", .response(TestResponse(body: .stall(prefix: [1, 2, 3], declaredLength: 100))))
        let response = try await self.client.execute(HTTPClientRequest(url: origin.url("/stall")), timeout: .seconds(30))
        #expect(response.headers["Content-Length"] == ["100"])
        var iterator = response.body.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first.map { Array($0.readableBytesView) } == [1, 2, 3])
        async let stopped: Void = origin.stop()
        await #expect(throws: (any Error).self) {
            while try await iterator.next() != nil {}
        }
        await stopped
    }

    @Test func generatedBodiesStreamAPattern() async throws {
        try await withTestOrigin { origin in
            let length = 3 * 1024 * 1024 + 17
            origin.setRoute("/big", .resource(TestResource(content: .generated(length: length), eTag: "\"g\"")))
            let response = try await self.client.execute(HTTPClientRequest(url: origin.url("/big")), timeout: .seconds(60))
            #expect(response.headers["Content-Length"] == ["\(length)"])
            var offset = 0
            var mismatches = 0
            for try await buffer in response.body {
                for byte in buffer.readableBytesView {
                    if byte != TestContent.generatedByte(at: offset) { mismatches += 1 }
                    offset += 1
                }
            }
            #expect(offset == length)
            #expect(mismatches == 0)

            let (range, rangeBody) = try await self.get(origin.url("/big"), headers: [("Range", "bytes=1000000-1000099")])
            #expect(range.status == .partialContent)
            #expect(rangeBody == TestContent.generatedBytes(1_000_000..<1_000_100))
        }
    }

    @Test func handlerSeesTheRequestAndHeadHasNoBody() async throws {
        try await withTestOrigin { origin in
            origin.setRoute(
                "/echo",
                .handler { request in
                    .ok("\(request.method) \(request.header("Accept") ?? "-") #\(request.sequenceNumber)")
                }
            )
            let (response, body) = try await self.get(origin.url("/echo"), headers: [("Accept", "image/png")])
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self) == "GET image/png #1")
            let (head, headBody) = try await self.get(origin.url("/echo"), method: .HEAD)
            #expect(head.headers["Content-Length"] == ["\("HEAD - #2".utf8.count)"])
            #expect(headBody.isEmpty)
        }
    }

    @Test func chunkedTransferCoding() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/chunked", .response(TestResponse(body: .chunkedEncoding([[1, 2], [3], [4, 5, 6]]))))
            let (response, body) = try await self.get(origin.url("/chunked"))
            #expect(response.headers["Content-Length"].isEmpty)
            #expect(response.headers["Transfer-Encoding"] == ["chunked"])
            #expect(body == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test func eachOriginGetsItsOwnPort() async throws {
        try await withTestOrigin { first in
            try await withTestOrigin { second in
                #expect(first.port > 0)
                #expect(second.port > 0)
                #expect(first.port != second.port)
                #expect(first.baseURL == "http://127.0.0.1:\(first.port)")
            }
        }
    }
}
