@testable import AssetServer
import AssetTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The `TCP_NOTSENT_LOWAT` of the server's connections (``AssetServer/Configuration/unsentBytesLimit``),
/// read back from the accepted socket itself: the server runs in this process, so its descriptor
/// is one of ours.
@Suite("The unsent-bytes limit of connections")
struct UnsentBytesLimitTests {
    @Test func eachConnectionHasTheDefaultLimit() async throws {
        let limit = try await acceptedSocketLimit { _ in }
        #expect(limit == 128 << 10)
    }

    @Test func aConfiguredLimitIsSet() async throws {
        let limit = try await acceptedSocketLimit { $0.unsentBytesLimit = 40_000 }
        #expect(limit == 40_000)
    }

    @Test func noLimitLeavesTheKernelDefault() async throws {
        // 0: the socket has no limit of its own, so net.ipv4.tcp_notsent_lowat applies
        let limit = try await acceptedSocketLimit { $0.unsentBytesLimit = nil }
        #expect(limit == 0)
    }

    /// Connects to a server configured by `configure`, has one request answered (so the connection
    /// is set up), and reads `TCP_NOTSENT_LOWAT` of the server's end of that connection.
    private func acceptedSocketLimit(_ configure: @escaping (inout AssetServer.Configuration) -> Void) async throws -> Int32? {
        try await ServerHarness.with({ configuration, _ in configure(&configuration) }) { harness in
            let connection = try RawConnection(port: harness.port)
            try connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            // the server answers on threads this blocking read must not take
            await onOwnThread { connection.waitUntilPending(12) }
            guard let clientPort = Self.port(of: connection.fd, peer: false) else { return nil }
            return Self.serverSocket(port: harness.port, peerPort: clientPort).flatMap(Self.notSentLowat)
        }
    }

    /// The descriptor of this process whose local port is `port` and whose peer's port is `peerPort`.
    static func serverSocket(port: Int, peerPort: Int) -> Int32? {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { Int32($0) }.first { fd in
            Self.port(of: fd, peer: false) == port && Self.port(of: fd, peer: true) == peerPort
        }
    }

    /// The IPv4 port of a socket's own (or its peer's) address; nil for anything else.
    static func port(of fd: Int32, peer: Bool) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        guard result == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func notSentLowat(_ fd: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), AssetHTTPChannel.tcpNotSentLowat, &value, &length) == 0 else { return nil }
        return value
    }
}
