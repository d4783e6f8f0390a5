#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names with the system resolver (`getaddrinfo`), blocking: call it from a thread
/// that may block.
enum HostResolution {
    /// Every IPv4 and IPv6 address `host` resolves to, without duplicates, in the resolver's order.
    /// A literal (`127.1` and the other forms the C library accepts included) resolves to itself.
    static func addresses(of host: String) throws(LoaderError) -> [IPAddress] {
        let name = DestinationPolicy.bare(host)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw LoaderError.connection.with(message: "cannot resolve \(name): \(reason)")
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let socketAddress = current.pointee.ai_addr, let address = IPAddress(socketAddress: socketAddress),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            node = current.pointee.ai_next
        }
        return addresses
    }
}
