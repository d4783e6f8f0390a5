import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LoaderError {
    /// A short, readable account of a lower layer's error, said once: what a message puts after
    /// its colon.
    ///
    /// NIO's own descriptions do not fit that: an `IOError` reads `connection reset (error set):
    /// Connection refused) (errno: 111)` for a refused connection (the reason NIO gives every failed
    /// connect, and a parenthesis it never opened), and a `NIOConnectionError` repeats it for every
    /// address tried. Here the system's words for the errno are used, once per distinct failure.
    static func cause(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return Self.errnoText(error.errnoCode)
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError {
                return "cannot resolve \(error.host): \(Self.cause(dns))"
            }
            var seen: [String] = []
            for failure in error.connectionErrors {
                let text = Self.cause(failure.error)
                if !seen.contains(text) { seen.append(text) }
            }
            return "cannot connect to \(error.host):\(error.port)" + (seen.isEmpty ? "" : ": " + seen.joined(separator: "; "))
        case let error as SocketAddressError.UnknownHost:
            return "\(error.errorDescription) (error \(error.errorCode))"
        case let error as HTTPParserError:
            switch error {
            case .headerOverflow: return "a head larger than the parser accepts"
            case .invalidChunkSize: return "a chunk size that is not a hexadecimal number"
            default: return "\(error)"
            }
        case let error as HTTPClientError:
            return error.shortDescription.prefix(1).lowercased() + error.shortDescription.dropFirst()
        case let error as ChannelError:
            return "\(error)"
        case let error as LoaderError:
            return error.message
        default:
            return "\(error)"
        }
    }

    /// `Connection refused (errno 111)`.
    static func errnoText(_ code: CInt) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: text)) (errno \(code))"
    }
}
