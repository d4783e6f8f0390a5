#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request with its URL checked: the scheme, the cache key and the key that coalesces identical loads.
struct LoadTarget: Sendable {
    enum Scheme: Sendable, Equatable {
        case http
        case file(path: String)
    }

    let request: AssetRequest
    let scheme: Scheme
    let cacheKey: String

    init(_ request: AssetRequest) throws(LoaderError) {
        guard let components = URLComponents(string: request.address), let scheme = components.scheme?.lowercased() else {
            throw LoaderError.invalidURL.with(message: "not an absolute URL: \(request.address)")
        }
        switch scheme {
        case "http", "https":
            guard let host = components.host, !host.isEmpty else {
                throw LoaderError.invalidURL.with(message: "no host in \(request.address)")
            }
            self.scheme = .http
        case "s3":
            // loaded as an http URL is: the door (`AssetLoader.sendToS3`) signs it for the object store
            _ = try S3Location(url: request.address)
            self.scheme = .http
        case "file":
            let path = components.percentEncodedPath.removingPercentEncoding ?? components.path
            guard !path.isEmpty else { throw LoaderError.invalidURL.with(message: "no path in \(request.address)") }
            self.scheme = .file(path: path)
        default:
            throw LoaderError.unsupportedScheme.with(message: "the scheme \(scheme) is not supported (\(request.address))")
        }
        self.request = request
        let key = request.cacheKey ?? AssetLoader.defaultCacheKey(for: components, url: request.address)
        guard !key.isEmpty else { throw LoaderError.invalidURL.with(message: "an empty cache key") }
        self.cacheKey = key
    }

    /// Loads with the same key, URL, strategy and request fields share one exchange.
    var coalescingKey: String {
        var key = "\(self.cacheKey)\n\(self.request.address)\n\(self.request.kind.rawValue)\n\(self.request.strategy)"
        key += "\n\(self.request.followRedirects)\(self.request.acceptsAnyStatus)"
        for field in self.request.headers {
            key += "\n\(field.name.lowercased()): \(field.value)"
        }
        return key
    }
}
