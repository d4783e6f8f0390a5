import AssetTestSupport
import AsyncHTTPClient
import Foundation
import Testing

@Suite("TestOrigin large bodies")
struct TestOriginLargeBodyTests {
    /// The origin runs in the LoaderWorker child, so that its peak memory is the origin's alone (this
    /// process's moves with every test running beside it); this process reads the body as it comes.
    @Test(.enabled(
        if: !AddressSanitizer.isActive && !ThreadSanitizer.isActive,
        "peak memory is not meaningful under a sanitizer (under TSan the child's grew by more than 100 MB)"))
    func streams200MegabytesWithoutHoldingThem() async throws {
        let length = 200 * 1024 * 1024
        let dir = try FaultDirectory()
        let worker = try FaultWorker([FaultWorker.binary, dir.path + "/cache", "http://127.0.0.1:1", "1"])
        let port = try #require(try await worker.send("serve \(length)")["port"] as? Int)
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/huge"), timeout: .seconds(300))
        #expect(response.headers["Content-Length"] == ["\(length)"])
        var received = 0
        var firstBytes: [UInt8] = []
        var lastBytes: [UInt8] = []
        for try await buffer in response.body {
            if firstBytes.count < 1000 {
                firstBytes += buffer.readableBytesView.prefix(1000 - firstBytes.count)
            }
            received += buffer.readableBytes
            // the last 1,000 bytes, across buffers: the final buffer can be shorter than that
            lastBytes = Array((lastBytes + buffer.readableBytesView.suffix(1000)).suffix(1000))
        }
        #expect(received == length)
        #expect(firstBytes == TestContent.generatedBytes(0..<1000))
        #expect(lastBytes == TestContent.generatedBytes((length - lastBytes.count)..<length))
        #expect(lastBytes.count == 1000)
        // the origin did not hold the body: its peak grew by far less than the body's size
        let growth = try #require(try await worker.send("peak")["peakGrowth"] as? Int)
        #expect(growth >= 0 && growth < 100 * 1024 * 1024, "the origin's peak resident size grew by \(growth) bytes")
        try await worker.quit()
    }
}
