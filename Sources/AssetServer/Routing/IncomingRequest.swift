import HTTPTypes
import HummingbirdCore
import NIOCore

/// A request as the endpoints see it: the parsed head, its query, and the connection it came on.
struct IncomingRequest: Sendable {
    let request: Request
    let channel: any Channel
    let query: [(name: String, value: String)]
    let pump: BodyPump

    init(_ request: Request, channel: any Channel, writeTimeout: TimeAmount) {
        self.request = request
        self.channel = channel
        self.query = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
        self.pump = BodyPump(channel: channel, timeout: writeTimeout)
    }

    var method: HTTPRequest.Method { request.method }
    var path: String { request.uri.path }
    /// Whether only the head is sent (`HEAD`).
    var headOnly: Bool { request.method == .head }
    var headers: HTTPFields { request.headers }

    /// The first value of a query parameter.
    func parameter(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// A required query parameter.
    func requiredParameter(_ name: String) throws -> String {
        guard let value = parameter(name), !value.isEmpty else { throw AssetServerError.missingParameter(name) }
        return value
    }

    /// An optional positive integer parameter.
    func positiveInt(_ name: String) throws -> Int? {
        guard let text = parameter(name) else { return nil }
        guard let value = Int(text), value > 0 else { throw AssetServerError.invalidParameter(name, "must be a positive integer") }
        return value
    }

    /// A boolean flag parameter: `1`, `true` or `yes` (or present without a value).
    func flag(_ name: String) -> Bool {
        guard let value = parameter(name) else { return false }
        return ["", "1", "true", "yes"].contains(value.lowercased())
    }

    /// The client's conditional header fields.
    var conditions: ClientConditions {
        ClientConditions(
            ifMatch: headers[.ifMatch], ifNoneMatch: headers[values: .ifNoneMatch].joinedOrNil,
            ifModifiedSince: headers[.ifModifiedSince], ifUnmodifiedSince: headers[.ifUnmodifiedSince],
            ifRange: headers[.ifRange])
    }

    /// The client's single byte range, if it asked for one.
    var range: ClientRange? { headers[.range].flatMap { ClientRange(header: $0) } }

    /// Whether the request carries cache directives for the cache (`Cache-Control`, `Pragma`).
    var hasCacheDirectives: Bool { headers[.cacheControl] != nil || headers[.pragma] != nil }
}

extension Array where Element == String {
    /// The values joined by ", ", or nil when there is none.
    var joinedOrNil: String? { isEmpty ? nil : joined(separator: ", ") }
}
