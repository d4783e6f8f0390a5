import AssetStorage
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension LoaderError {
    /// The loader's error for an error thrown by an exchange or a body stream of the loader's HTTP
    /// client: what code that sends through ``AssetLoader/send(_:deadline:followRedirects:kind:)``
    /// and reads the body itself (range reads) reports.
    public static func from(_ error: any Error) -> LoaderError {
        mapping(error)
    }

    /// The loader's error for any error thrown while loading.
    static func mapping(_ error: any Error) -> LoaderError {
        switch error {
        case let error as LoaderError:
            return error
        case is CancellationError:
            return .cancelled.with(underlying: error)
        case let error as HTTPClientError:
            return Self.mapping(client: error)
        case HTTPParserError.invalidEOFState:
            // the connection closed in the middle of a message: a body cut short, worth a retry
            return .truncated.with(message: "the connection closed before the end of the answer", underlying: error)
        case let error as HTTPParserError:
            return .invalidResponse.with(message: "the origin's answer is not valid HTTP/1.1: \(Self.cause(error))", underlying: error)
        case let error as StorageError:
            if error.code == .tooLarge { return .tooLarge.with(message: error.message, underlying: error) }
            if error.code == .closed { return .shutdown.with(message: error.message, underlying: error) }
            return .storage.with(message: error.message, underlying: error)
        default:
            return .connection.with(message: "the connection failed: \(Self.cause(error))", underlying: error)
        }
    }

    private static func mapping(client error: HTTPClientError) -> LoaderError {
        switch error {
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout:
            return .timeout.with(message: "timed out: \(Self.cause(error))", underlying: error)
        case .redirectLimitReached:
            return .tooManyRedirects.with(underlying: error)
        case .redirectCycleDetected:
            return .redirectLoop.with(underlying: error)
        case .cancelled, .requestStreamCancelled:
            return .cancelled.with(underlying: error)
        case .invalidURL, .emptyHost, .emptyScheme:
            return .invalidURL.with(underlying: error)
        case .alreadyShutdown:
            return .shutdown.with(underlying: error)
        default:
            return .connection.with(message: "the exchange failed: \(Self.cause(error))", underlying: error)
        }
    }
}
