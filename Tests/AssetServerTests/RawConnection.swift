import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to the server made with plain sockets, for clients that misbehave on purpose:
/// one that never finishes its request head, one that does not read its response.
final class RawConnection: @unchecked Sendable {
    let fd: Int32

    /// Connects to `127.0.0.1:port`; `receiveBuffer` shrinks the socket's receive buffer (a slow
    /// reader whose window fills at once).
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw POSIXError(.EPIPE) }
    }

    /// Whether the peer has not closed the connection (bytes waiting to be read count as open).
    var isOpen: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n > 0 { return true }
        if n == 0 { return false }
        return errno == EAGAIN || errno == EWOULDBLOCK
    }

    /// Blocks until at least `count` bytes wait to be read (or the peer closed), reading none of them.
    func waitUntilPending(_ count: Int) {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, Int32(MSG_PEEK | MSG_WAITALL)) }
            if n >= count || n == 0 || (n < 0 && errno != EINTR) { return }
        }
    }

    /// The bytes read until the peer closes the connection or `timeout` passes.
    func readAll(timeout: Double) -> [UInt8] {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// Reads until the peer closes the connection or `timeout` passes; returns the bytes read and
    /// whether the peer closed.
    func readUntilClosed(timeout: Double) -> (bytes: Int, closed: Bool) {
        var total = 0
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return (total, true) }
            if n < 0 { return (total, true) }
            total += n
        }
        return (total, false)
    }
}
