import AssetTestSupport
import AsyncHTTPClient
import Foundation
import Testing

@Suite("TestOrigin large bodies")
struct TestOriginLargeBodyTests {
    /// The peak resident set size of this process in bytes, from /proc/self/status (VmHWM).
    static func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    @Test(.enabled(if: !AddressSanitizer.isActive, "peak memory is not meaningful under AddressSanitizer"))
    func streams200MegabytesWithoutHoldingThem() async throws {
        try await ProcessMemoryLock.shared.exclusive {
            try await withTestOrigin { origin in
                let length = 200 * 1024 * 1024
                origin.setRoute("/huge", .response(TestResponse(body: .generated(length: length))))
                let peakBefore = try Self.peakResidentBytes()
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.url("/huge")), timeout: .seconds(300))
                #expect(response.headers["Content-Length"] == ["\(length)"])
                var received = 0
                var firstBytes: [UInt8] = []
                var lastBytes: [UInt8] = []
                for try await buffer in response.body {
                    if firstBytes.count < 1000 {
                        firstBytes += buffer.readableBytesView.prefix(1000 - firstBytes.count)
                    }
                    received += buffer.readableBytes
                    if received == length {
                        lastBytes = Array(buffer.readableBytesView.suffix(1000))
                    }
                }
                #expect(received == length)
                #expect(firstBytes == TestContent.generatedBytes(0..<1000))
                #expect(lastBytes == TestContent.generatedBytes((length - lastBytes.count)..<length))
                #expect(lastBytes.count == 1000)
                // neither side held the body: the peak grew by far less than its size
                let growth = try Self.peakResidentBytes() - peakBefore
                #expect(growth < 100 * 1024 * 1024, "peak resident size grew by \(growth) bytes")
            }
        }
    }
}
